/** Action specifications of service specifications: the generated defaults and custom ones. */
import { Repository, type EntityManager } from 'typeorm';
import { ActionSpecificationEntity } from '../entities/action-specification';
import { rowsOf } from '../sql';
import { insertReturning } from './returning';

export type ActionSpecificationFields = Pick<ActionSpecificationEntity, 'name' | 'slug' | 'type' | 'parameters' | 'results'>;

export class ActionSpecificationRepository extends Repository<ActionSpecificationEntity> {
  static of(manager: EntityManager): ActionSpecificationRepository {
    return new ActionSpecificationRepository(ActionSpecificationEntity, manager);
  }

  async ofSpecification(serviceSpecificationId: string): Promise<ActionSpecificationEntity[]> {
    return this.find({ where: { serviceSpecificationId }, order: { createdAt: 'ASC', slug: 'ASC' } });
  }

  async insertCustom(serviceSpecificationId: string, fields: ActionSpecificationFields): Promise<ActionSpecificationEntity> {
    return insertReturning(this, { ...fields, serviceSpecificationId, isDefault: false });
  }

  /** Writes the default create/update/delete action specifications in one statement, keeping their ids when they exist. */
  async upsertDefaults(serviceSpecificationId: string, specs: ActionSpecificationFields[]): Promise<void> {
    await rowsOf(
      this.manager,
      `INSERT INTO action_specifications (service_specification_id, name, slug, type, parameters, results, is_default)
       SELECT $1, w.name, w.slug, w.type, w.parameters, w.results, true
         FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) AS w(name, slug, type, parameters, results)
       ON CONFLICT ON CONSTRAINT action_specifications_slug_unique DO UPDATE
         SET name = EXCLUDED.name, parameters = EXCLUDED.parameters, results = EXCLUDED.results, is_default = true, updated_at = now()`,
      [
        serviceSpecificationId,
        specs.map((s) => s.name),
        specs.map((s) => s.slug),
        specs.map((s) => s.type),
        specs.map((s) => JSON.stringify(s.parameters)),
        specs.map((s) => JSON.stringify(s.results)),
      ],
    );
  }

  /** Drops default action specifications no service action refers to (when defaults are switched off). */
  async removeUnusedDefaults(serviceSpecificationId: string): Promise<void> {
    await rowsOf(
      this.manager,
      `DELETE FROM action_specifications a WHERE a.service_specification_id = $1 AND a.is_default
          AND NOT EXISTS (SELECT 1 FROM service_actions s WHERE s.specification_id = a.id OR s.desired_specification_id = a.id)`,
      [serviceSpecificationId],
    );
  }
}
