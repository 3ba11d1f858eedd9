/** The project folder (pair, calibration sets, settings, cache): open, save (also automatic), the built-in pairs, recent. */
import { checkPath } from '../../lib/path-check.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { SaveMarker } from '../app/SaveMarker.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { PathField } from './PathField.tsx';

export function ProjectPanel() {
  const actions = useActions();
  const project = useApp((s) => s.project);
  const setDir = useApp((s) => s.setProjectDir);
  const valid = checkPath(project.dir).ok;
  const busy = project.state.status === 'loading';
  return (
    <section className="panel" aria-labelledby="project-title">
      <h2 id="project-title">Project</h2>
      <PathField label="Project folder" purpose="project" value={project.dir} onChange={setDir} />
      <div className="button-row">
        <button type="button" disabled={!valid || busy} onClick={() => void actions.openProject()}>
          Open project
        </button>
        <button type="button" disabled={!valid || busy} onClick={() => void actions.saveProject(project.dir)}>
          Save project
        </button>
        <SaveMarker />
      </div>
      <EngineNotice error={project.state.error} what="Project" />
      {project.state.result !== null && <p className="small muted">Open: {project.state.result.projectDir}</p>}
      {project.builtins.length > 0 && (
        <>
          <h3>Built-in pairs</h3>
          <ul className="recent">
            {project.builtins.map((builtin) => (
              <li key={builtin.name}>
                <button type="button" className="link" disabled={busy} title={builtin.projectDir} onClick={() => void actions.openProject(builtin.projectDir)}>
                  {builtin.label}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {project.recent.length > 0 && (
        <>
          <h3>Recent</h3>
          <ul className="recent">
            {project.recent.map((dir) => (
              <li key={dir}>
                <button type="button" className="link mono" onClick={() => void actions.openProject(dir)}>
                  {dir}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
