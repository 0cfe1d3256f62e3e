/** `npm run start:worker`: a Temporal worker alone (production: `--scale worker=N`). */
import { runService } from './main';

runService({ api: false, worker: true });
