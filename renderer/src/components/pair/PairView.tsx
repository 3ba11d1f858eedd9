import { PairPanel } from './PairPanel.tsx';
import { ProjectPanel } from './ProjectPanel.tsx';

export function PairView() {
  return (
    <div className="two-col wide-left">
      <PairPanel />
      <ProjectPanel />
    </div>
  );
}
