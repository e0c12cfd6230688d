import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { IdColumn, RefColumn } from '../../database/columns';
import { SeriesEnrollmentEntity } from './series-enrollment.entity';
import { SeriesStepEntity } from './series-step.entity';

/**
 * A step sent to an enrollment, recorded in the transaction that hands the mail to the email
 * module, before it does: unique per enrollment and step, so a step never goes out twice.
 */
@Entity('newsletter_series_sends')
@Index('newsletter_series_sends_enrollment_id_step_id_key', ['enrollmentId', 'stepId'], { unique: true })
// The cascade of a step's removal (its sends keep their history with no step).
@Index('newsletter_series_sends_step_id_idx', ['stepId'])
export class SeriesSendEntity {
  @IdColumn() id: number;
  @RefColumn() siteId: number;
  @RefColumn() enrollmentId: number;
  @ManyToOne(() => SeriesEnrollmentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'enrollment_id' })
  enrollment?: SeriesEnrollmentEntity;
  @RefColumn({ nullable: true }) stepId: number | null;
  @ManyToOne(() => SeriesStepEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'step_id' })
  step?: SeriesStepEntity;
  /** The step's position when it was sent. */
  @Column({ type: 'integer' }) position: number;
  /** The email module's message (email_messages.id). */
  @RefColumn({ nullable: true }) messageId: number | null;
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' }) sentAt: Date;
}
