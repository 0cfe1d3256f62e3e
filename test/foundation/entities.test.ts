/**
 * The entity is the row: every table the migrations create has its entity, with every column, so
 * repositories select columns from entity metadata and nothing reads a table TypeORM does not know.
 */
import assert from 'node:assert/strict';
import { testDataSource } from '../support/database';

describe('entities', () => {
  it('every migrated table has an entity, and every column of it a column of the entity', async () => {
    const db = await testDataSource();
    const columns = await db.query<Array<{ table_name: string; column_name: string }>>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> 'migrations'`,
    );
    const known = new Map(db.entityMetadatas.map((meta) => [meta.tableName, new Set(meta.columns.map((column) => column.databaseName))]));
    const missingTables = [...new Set(columns.map((row) => row.table_name))].filter((table) => !known.has(table)).sort();
    assert.deepEqual(missingTables, [], 'tables without an entity (add one under db/entities/ and to ENTITIES)');
    const missingColumns = columns
      .filter((row) => known.has(row.table_name) && !known.get(row.table_name)!.has(row.column_name))
      .map((row) => `${row.table_name}.${row.column_name}`)
      .sort();
    assert.deepEqual(missingColumns, [], 'columns an entity does not declare');
  });
});
