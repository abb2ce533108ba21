/// The inspector's style sheet (`GET /__admin/ui/app.css`): system fonts, light and dark from
/// `prefers-color-scheme`, a visible focus ring on everything that takes focus.
enum InspectorStyle {
    static let css = #"""
        :root {
          color-scheme: light dark;
          --bg: #ffffff; --fg: #1d2125; --muted: #5c6670; --line: #d8dde3; --panel: #f5f7f9;
          --accent: #0b5cad; --accent-fg: #ffffff; --focus: #0b5cad;
          --row-hover: #eef3f8; --row-active: #dce9f7;
          --ok: #1a7f37; --warn: #9a6700; --bad: #c4262e;
          --expected-bg: #dff5e3; --expected-fg: #0f5323; --actual-bg: #fde2e1; --actual-fg: #8a1219;
          --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #15181c; --fg: #e3e7eb; --muted: #9aa5b1; --line: #323a43; --panel: #1d2126;
            --accent: #6cb0ff; --accent-fg: #0d1117; --focus: #8cc2ff;
            --row-hover: #232a32; --row-active: #1f3450;
            --ok: #56d364; --warn: #e3b341; --bad: #ff7b72;
            --expected-bg: #11361d; --expected-fg: #8ee79f; --actual-bg: #4a1618; --actual-fg: #ffb3ad;
          }
        }
        * { box-sizing: border-box; }
        html, body { height: 100%; }
        body {
          margin: 0; background: var(--bg); color: var(--fg);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          display: flex; flex-direction: column;
        }
        code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
        h1 { font-size: 16px; margin: 0; white-space: nowrap; }
        h1 span { font-weight: 400; color: var(--muted); }
        h2 { font-size: 15px; margin: 16px 0 8px; }
        h3 { font-size: 13px; margin: 14px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
        :focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
        button, select, input, textarea { font: inherit; color: inherit; }
        button {
          background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
          padding: 4px 10px; cursor: pointer;
        }
        button:hover { border-color: var(--muted); }
        button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
        button.danger { color: var(--bad); }
        button.confirming { background: var(--bad); color: var(--bg); }
        select, input, textarea {
          background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 4px 6px;
        }
        .bar {
          display: flex; align-items: center; gap: 16px; flex-wrap: wrap;
          padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel);
        }
        [role="tablist"] { display: flex; gap: 4px; }
        [role="tab"] { border-radius: 6px 6px 0 0; border-bottom-width: 2px; }
        [role="tab"][aria-selected="true"] { border-bottom-color: var(--accent); font-weight: 600; }
        .connection { margin: 0 0 0 auto; color: var(--muted); font-size: 13px; }
        .connection.live::before { content: "●"; color: var(--ok); margin-right: 6px; }
        .connection.down::before { content: "●"; color: var(--bad); margin-right: 6px; }
        .actions { display: flex; gap: 6px; }
        .notice { margin: 0; padding: 0 16px; min-height: 0; font-size: 13px; }
        .notice:not(:empty) { padding: 6px 16px; background: var(--row-active); }
        .notice.error:not(:empty) { background: var(--actual-bg); color: var(--actual-fg); }
        main { flex: 1; min-height: 0; display: flex; flex-direction: column; }
        .panel { flex: 1; min-height: 0; display: flex; flex-direction: column; padding: 8px 16px 16px; overflow: auto; }
        .panel.requests { overflow: hidden; }
        .filters { display: flex; flex-wrap: wrap; align-items: end; gap: 10px; margin-bottom: 8px; }
        .filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
        .filters label.grow { flex: 1; min-width: 160px; }
        .counts { margin: 0 0 4px auto; font-size: 12px; color: var(--muted); }
        .split { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(0, 1.1fr) minmax(0, 1fr); gap: 12px; }
        @media (max-width: 900px) { .split { grid-template-columns: 1fr; grid-template-rows: 1fr 1fr; } }
        .list-wrap { min-height: 0; display: flex; flex-direction: column; border: 1px solid var(--line); border-radius: 8px; }
        .list-head, .row {
          display: grid; grid-template-columns: 92px 62px minmax(0, 1fr) 46px minmax(0, .8fr) 84px;
          gap: 8px; padding: 3px 8px; align-items: baseline;
        }
        .list-head { font-size: 12px; color: var(--muted); border-bottom: 1px solid var(--line); }
        .list { flex: 1; overflow: auto; min-height: 120px; }
        .list:focus-visible { outline-offset: -2px; }
        /* Rows out of view are not laid out or painted (a busy server replaces hundreds a second). */
        .row { cursor: pointer; border-bottom: 1px solid var(--line); font-size: 13px; content-visibility: auto; contain-intrinsic-size: auto 24px; }
        .row > span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .row:hover { background: var(--row-hover); }
        .row[aria-selected="true"] { background: var(--row-active); }
        .list:focus .row.active { outline: 2px solid var(--focus); outline-offset: -2px; }
        .row .time, .row .taken { font-family: var(--mono); font-size: 12px; color: var(--muted); }
        .row .method { font-weight: 600; }
        .row .target { font-family: var(--mono); font-size: 12.5px; }
        .s2 { color: var(--ok); } .s3 { color: var(--accent); } .s4 { color: var(--warn); } .s5, .fault { color: var(--bad); }
        .nomatch { color: var(--bad); font-weight: 600; }
        .refused { color: var(--bad); font-style: italic; }
        .aborted { color: var(--bad); font-style: italic; }
        .proxied { color: var(--accent); font-style: italic; }
        .empty { color: var(--muted); padding: 8px; margin: 0; }
        .detail { overflow: auto; min-height: 0; border: 1px solid var(--line); border-radius: 8px; padding: 4px 14px 14px; }
        .detail h2 { font-family: var(--mono); font-size: 14px; word-break: break-all; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
        .facts dt { color: var(--muted); }
        .facts dd { margin: 0; word-break: break-word; }
        .headers { width: 100%; border-collapse: collapse; font-family: var(--mono); font-size: 12.5px; }
        .headers th { text-align: left; font-weight: 600; padding: 1px 12px 1px 0; vertical-align: top; white-space: nowrap; width: 1%; }
        .headers td { word-break: break-all; padding: 1px 0; }
        pre.body {
          background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px;
          overflow: auto; max-height: 360px; margin: 4px 0; white-space: pre-wrap; word-break: break-word;
        }
        .note { color: var(--muted); font-size: 12.5px; margin: 4px 0; }
        .nearmiss { border: 1px solid var(--bad); border-radius: 8px; padding: 4px 12px 10px; margin: 10px 0; }
        .nearmiss ol { margin: 4px 0; padding-left: 22px; }
        .nearmiss ul { margin: 2px 0 8px; padding-left: 12px; list-style: none; }
        .mismatch { font-family: var(--mono); font-size: 12.5px; }
        mark.expected { background: var(--expected-bg); color: var(--expected-fg); border-radius: 3px; padding: 0 2px; }
        mark.actual { background: var(--actual-bg); color: var(--actual-fg); border-radius: 3px; padding: 0 2px; }
        .detail-actions { display: flex; gap: 6px; margin: 8px 0; }
        .table { width: 100%; border-collapse: collapse; font-size: 13px; }
        .table th, .table td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
        .table th { font-size: 12px; color: var(--muted); font-weight: 600; }
        .table td .sub { color: var(--muted); font-size: 12px; }
        .table ul { margin: 0; padding-left: 16px; }
        .inline { display: flex; gap: 6px; align-items: center; }
        .state { font-family: var(--mono); font-weight: 600; }
        .login { max-width: 460px; margin: 48px auto; padding: 0 16px; }
        .login form { display: flex; flex-direction: column; gap: 8px; }
        .error { color: var(--bad); margin: 4px 0; }
        dialog {
          width: min(760px, 94vw); border: 1px solid var(--line); border-radius: 10px;
          background: var(--bg); color: var(--fg); padding: 8px 20px 16px;
        }
        dialog::backdrop { background: rgb(0 0 0 / .45); }
        dialog textarea { width: 100%; font-family: var(--mono); font-size: 12.5px; }
        dialog label { display: block; margin: 8px 0 4px; }
        .dialog-actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 8px; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        [hidden] { display: none !important; }
        """#
}
