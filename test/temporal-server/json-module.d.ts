declare module '@temporalio/proto/protos/json-module' {
  import type { Root } from 'protobufjs';
  const root: Root;
  export default root;
}
