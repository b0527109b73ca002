import type { Server } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';

/** The standard grpc.health.v1 service name, for clients. */
export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

/**
 * gRPC health checking for the server as a whole ('') and for each service
 * by its full name, all flipped together: the services share one engine, so
 * they are healthy or not together.
 */
export class ServerHealth {
  private readonly impl: HealthImplementation;
  private readonly names: string[];

  constructor(serviceNames: string[]) {
    this.names = ['', ...serviceNames];
    this.impl = new HealthImplementation(
      Object.fromEntries(this.names.map((n) => [n, 'SERVING' as ServingStatus])),
    );
  }

  addTo(server: Server): void {
    this.impl.addToServer(server);
  }

  set(status: ServingStatus): void {
    for (const name of this.names) this.impl.setStatus(name, status);
  }
}
