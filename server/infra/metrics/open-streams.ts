import { Gauge } from 'prom-client';
import { registry } from './registry.ts';

/** CSV/JSON exports this process is streaming now (each holds one of its team's export leases). */
export const exportsOpen = new Gauge({
  name: 'intake_exports_open',
  help: 'Submission exports this process is streaming now.',
  registers: [registry],
});

/** Submission event streams (SSE) this process serves now. */
export const eventStreamsOpen = new Gauge({
  name: 'intake_event_streams_open',
  help: 'Submission event streams (text/event-stream) this process serves now.',
  registers: [registry],
});
