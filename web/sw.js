// The service worker (served at /sw.js, scope "/"): it keeps the client's shell (the
// two pages, the stylesheet, the modules, the icons) so that the table installs to a
// phone's home screen and opens without the network. Every shell request still goes
// to the network first, revalidated with the server (`no-cache`), so a new version of
// the client is used as soon as the server has it; the cache answers only when the
// network cannot. The game itself stays live: the API, the table's WebSocket and
// anything else never pass through here.

// A new name for a new list: the old cache is dropped when this worker takes over.
const CACHE = "spades-shell-1";

const SHELL = [
  "/",
  "/static/table.html",
  "/static/app.css",
  "/static/manifest.webmanifest",
  "/static/favicon.svg",
  "/static/favicon-turn.svg",
  "/static/icon-180.png",
  "/static/icon-192.png",
  "/static/icon-512.png",
  "/static/icon-maskable-512.png",
  "/static/announce.js",
  "/static/bidding.js",
  "/static/cards.js",
  "/static/chat.js",
  "/static/comfort.js",
  "/static/connection.js",
  "/static/cues.js",
  "/static/dom.js",
  "/static/hand.js",
  "/static/host.js",
  "/static/install.js",
  "/static/keys.js",
  "/static/links.js",
  "/static/lobby.js",
  "/static/night-follow.js",
  "/static/qr.js",
  "/static/review.js",
  "/static/rulebuilder.js",
  "/static/rules.js",
  "/static/scorepad.js",
  "/static/seating.js",
  "/static/seats.js",
  "/static/table.js",
  "/static/timer.js",
  "/static/trick.js",
  "/static/vendor/qrcode-generator.js",
];

// A table page is the same file for every table: offline, /t/<id> opens the kept one.
const TABLE_PAGE = "/static/table.html";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(SHELL.map((url) => new Request(url, { cache: "no-cache" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

function isShell(url) {
  if (url.origin !== self.location.origin) return false;
  return url.pathname === "/" || url.pathname.startsWith("/static/") || url.pathname.startsWith("/t/");
}

/** The network's answer (kept for later), or, when the network fails, the kept copy. */
async function networkFirst(request, url) {
  const cache = await caches.open(CACHE);
  const tablePage = url.pathname.startsWith("/t/");
  try {
    const response = await fetch(request, { cache: "no-cache" });
    // Every table's page is one file: the latest one answered is the one kept.
    if (response.ok) await cache.put(tablePage ? TABLE_PAGE : request, response.clone());
    return response;
  } catch (failure) {
    const kept = await cache.match(tablePage ? TABLE_PAGE : request, { ignoreSearch: true });
    if (kept) return kept;
    throw failure;
  }
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || !isShell(url)) return;
  event.respondWith(networkFirst(request, url));
});
