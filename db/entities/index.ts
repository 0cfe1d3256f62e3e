/** Every TypeORM entity of the service. */
export const ENTITIES: Array<new (...args: never[]) => unknown> = [];
