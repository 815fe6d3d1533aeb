'use strict';
// A person's browser, as far as a sign-in needs one (test support, never product code): it opens
// the page Loupe shows — the URL `loupe run` prints on stderr, the settings row's sign_in_url —
// and follows its redirects as a browser does (each Location resolved against the page it came
// from, fetched with GET), until a page answers. The authorization servers of the tests consent
// at once, so the last hop is Loupe's own redirect page on 127.0.0.1, which receives the code.
// Plain CommonJS so the conformance suite's client command (a .cjs script) and the vitest files
// (typed by testBrowser.d.cts) use the same one.

const MAX_REDIRECTS = 20;

/** Opens `url` and follows its redirects; the page it ends on, and every address on the way. */
async function openPage(url) {
  let at = new URL(url);
  const visited = [];
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    visited.push(at.href);
    const res = await fetch(at, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,*/*', 'user-agent': 'loupe-test-browser/1' } });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.arrayBuffer().catch(() => undefined);
      at = new URL(location, at);
      continue;
    }
    return { status: res.status, url: at.href, text: await res.text(), visited };
  }
  throw new Error(`${url}: more than ${MAX_REDIRECTS} redirects`);
}

/** The sign-in page a line of `loupe run`'s stderr asks the person to open, if it asks. */
function signInUrlIn(line) {
  const m = /needs you to sign in: open (\S+)/.exec(line);
  return m ? m[1] : null;
}

/**
 * Reads a stream of text (a process's stderr) line by line and opens each sign-in page a line
 * names, once, as a person at the terminal would. `opened` hears each page it ended on.
 */
function openPagesFrom(stream, opened = () => {}) {
  const seen = new Set();
  let rest = '';
  stream.on('data', (chunk) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const url = signInUrlIn(line);
      if (!url || seen.has(url)) continue;
      seen.add(url);
      openPage(url).then(
        (page) => opened(null, page),
        (err) => opened(err, null),
      );
    }
  });
}

module.exports = { openPage, openPagesFrom, signInUrlIn };
