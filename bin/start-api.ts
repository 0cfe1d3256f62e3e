/** `npm run start:api`: the HTTP API alone (production: scale replicas independently of workers). */
import { runService } from './main';

runService({ api: true, worker: false });
