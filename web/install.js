// The page as an app: registers the service worker (sw.js, served at /sw.js so that it
// covers the whole site), which keeps the shell for the home-screen app and for a
// start without network. Browsers allow it only on https:// or on this computer's own
// address; elsewhere the page simply works as before.

export function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    /* no worker: the page still works, it only cannot be installed */
  });
}
