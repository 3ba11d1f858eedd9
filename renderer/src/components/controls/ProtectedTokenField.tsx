/**
 * The lm_head rows an edit keeps at θ_I: Instruct's added tokens but the think pair (from the
 * pair report), with the user's additions and removals typed as `+151669, -151650`. The text is
 * a draft until Enter or leaving the field; text that does not parse is named and changes nothing.
 */
import { useState } from 'react';
import { applyProtectedEdits, formatIdRanges, formatProtectedEdits, parseProtectedEdits } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';

export function ProtectedTokenField() {
  const tokens = useApp((s) => s.pair.summary.result?.report.tokens);
  const edits = useApp((s) => s.settings.current.special.protectedTokens);
  const update = useApp((s) => s.updateSettings);
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const commit = () => {
    if (draft === null) return;
    try {
      const next = parseProtectedEdits(draft);
      const empty = next.add.length === 0 && next.remove.length === 0;
      update(({ special: { protectedTokens: _dropped, ...rules }, ...s }) => ({ ...s, special: empty ? rules : { ...rules, protectedTokens: next } }));
      setDraft(null);
      setProblem(null);
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const protectedIds = applyProtectedEdits(tokens?.special ?? [], edits);
  return (
    <div className="protected-tokens">
      <p className="hint" data-testid="protected-rows">
        {tokens === undefined
          ? 'Protected lm_head rows: open a pair to see its added tokens'
          : `Protected lm_head rows (kept at θ_I): ${protectedIds.length > 0 ? formatIdRanges(protectedIds) : 'none'} · think rows ${formatIdRanges(tokens.think) || 'none'}`}
      </p>
      <label>
        Protect ids <span className="hint">+id adds a row, −id releases one</span>
        <input
          type="text"
          className="mono"
          value={draft ?? formatProtectedEdits(edits)}
          placeholder="+151669, -151650"
          aria-invalid={problem !== null}
          onChange={(e) => setDraft(e.currentTarget.value)}
          onBlur={commit}
          onKeyDown={(e) => e.key === 'Enter' && commit()}
        />
      </label>
      {problem !== null && <p role="alert" className="finding error">{problem}</p>}
    </div>
  );
}
