// Preloaded (NODE_OPTIONS=--require) into a service the traces test starts: at exit, one stderr line
// counting the OpenTelemetry SDK modules the process loaded (the bare API is not counted: prom-client
// loads it for exemplars, tracing or not, and it is a no-op until an SDK registers).
const fs = require('node:fs');
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) =>
    /[\\/](@opentelemetry[\\/](?!api[\\/])|@temporalio[\\/]interceptors-opentelemetry[\\/])/.test(file),
  );
  fs.writeSync(2, `\nloaded-opentelemetry-modules: ${loaded.length}\n`);
});
