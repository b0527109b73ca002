// The index-job port lives in @codesift/core (shared by the local runner in
// @codesift/pipeline and the cluster's in @codesift/cluster-services); the
// IndexService speaks it.
export type {
  IndexJobState,
  IndexJobStatus,
  IndexJobs,
  StartIndexJobRequest,
} from '@codesift/core';
