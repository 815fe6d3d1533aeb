import type { ModelFactsView, ModelSettingsRow } from '../../shared/contract';

/** A price as typed: empty is "not set". */
const parsePrice = (v: string): number | undefined => (v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Math.max(0, Number(v)));

/**
 * What Loupe should know of each model that its server may not say: the price (USD per million
 * tokens, for the cost shown by the chat's meter) and whether it takes images.
 */
export function ModelTable({ rows, onChange, model, facts }: { rows: ModelSettingsRow[]; onChange(rows: ModelSettingsRow[]): void; model: string; facts?: ModelFactsView }) {
  const update = (i: number, change: Partial<ModelSettingsRow>) => onChange(rows.map((r, j) => (j === i ? clean({ ...r, ...change }) : r)));
  const hasCurrent = rows.some((r) => r.model === model.trim());
  return (
    <div className="settings-models" data-testid="settings-models">
      <div className="settings-title settings-section">Models</div>
      <span className="muted settings-note">
        Prices make the chat show what a session costs; “images” lets you paste screenshots for that model.
        {facts && ` For ${model}: a ${facts.context_window.toLocaleString('en-US')}-token window (${facts.context_window_source === 'server' ? 'from the server' : facts.context_window_source === 'settings' ? 'from the setting above' : 'default'}), images ${facts.images ? 'yes' : 'no'}${facts.images_source === 'server' ? ' (the server says)' : ''}${facts.input_usd_per_mtok !== undefined ? `, $${facts.input_usd_per_mtok} / $${facts.output_usd_per_mtok} per million tokens` : ''}.`}
      </span>
      {rows.length > 0 && (
        <table className="settings-model-table">
          <thead>
            <tr>
              <th>Model</th>
              <th title="USD per million prompt tokens">$ / M in</th>
              <th title="USD per million answer tokens">$ / M out</th>
              <th>Images</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              // Remounted when a row goes: the price fields keep what was typed (uncontrolled, so "0." can be typed).
              <tr key={`${i}:${rows.length}`} data-testid="settings-model-row" data-model={r.model}>
                <td>
                  <input className="text-input" aria-label="Model name" value={r.model} onChange={(e) => update(i, { model: e.target.value })} />
                </td>
                <td>
                  <input className="text-input" aria-label={`Input price of ${r.model}`} inputMode="decimal" defaultValue={r.input_usd_per_mtok ?? ''} onChange={(e) => update(i, { input_usd_per_mtok: parsePrice(e.target.value) })} />
                </td>
                <td>
                  <input className="text-input" aria-label={`Output price of ${r.model}`} inputMode="decimal" defaultValue={r.output_usd_per_mtok ?? ''} onChange={(e) => update(i, { output_usd_per_mtok: parsePrice(e.target.value) })} />
                </td>
                <td>
                  <select className="text-input" aria-label={`Whether ${r.model} takes images`} data-testid="settings-model-images" value={r.images === undefined ? '' : String(r.images)} onChange={(e) => update(i, { images: e.target.value === '' ? undefined : e.target.value === 'true' })}>
                    <option value="">as the server says</option>
                    <option value="true">takes images</option>
                    <option value="false">text only</option>
                  </select>
                </td>
                <td>
                  <button type="button" className="icon-btn" aria-label={`Remove ${r.model}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                    ✕
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="link-btn" data-testid="settings-model-add" onClick={() => onChange([...rows, { model: hasCurrent ? '' : model.trim() }])}>
        + {hasCurrent || !model.trim() ? 'Add a model' : `Add ${model.trim()}`}
      </button>
    </div>
  );
}

function clean(r: ModelSettingsRow): ModelSettingsRow {
  const out: ModelSettingsRow = { model: r.model };
  if (r.input_usd_per_mtok !== undefined) out.input_usd_per_mtok = r.input_usd_per_mtok;
  if (r.output_usd_per_mtok !== undefined) out.output_usd_per_mtok = r.output_usd_per_mtok;
  if (r.images !== undefined) out.images = r.images;
  return out;
}
