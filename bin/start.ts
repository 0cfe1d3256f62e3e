/** `npm start`: API and worker in one process, with embedded defaults. */
import { runService } from './main';

runService({ api: true, worker: true });
