/** `npm run build` (after tsc): builds the web console into dist/console. */
import { buildConsole, CONSOLE_ASSETS_DIR } from '../startup/console-build';

buildConsole().then(
  () => console.log(`console built into ${CONSOLE_ASSETS_DIR}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
