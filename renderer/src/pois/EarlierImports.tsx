import { useId } from 'react';
import { isImportJob } from '../../../shared/jobs';
import { useClientJobs } from '../jobs/queries';
import { ImportJobView } from './ImportJobView';

/** The client's earlier imports and checks, newest first, each with its report (kept by the main process). */
export function EarlierImports({ clientId, current }: { clientId: string; current: string | undefined }) {
  const id = useId();
  const jobs = useClientJobs(clientId).data?.filter(isImportJob).filter((job) => job.id !== current && job.state !== 'running') ?? [];
  if (jobs.length === 0) return null;
  return (
    <details className="earlier-imports">
      <summary id={id}>Earlier imports and checks ({jobs.length})</summary>
      <ul aria-labelledby={id}>
        {jobs.map((job) => (
          <li key={job.id}>
            <details>
              <summary>
                {job.kind === 'check' ? 'Check' : 'Import'} of {job.label}, {new Date(job.startedAt).toLocaleString()}: {job.state}
              </summary>
              <ImportJobView clientId={clientId} job={job} />
            </details>
          </li>
        ))}
      </ul>
    </details>
  );
}
