// A profile's or card's page opened inside another app's browser (issue 63): says so, and offers what works there: a
// link that opens the page in the visitor's own browser where one is known (else the app's menu, in words), a button
// that copies the page's link, and on a card, where downloads go nowhere, "Save contact" sent to the visitor's
// browser (or hidden where no way out is known) beside a button that copies the contact as text. Shown only in an app
// the table names (src/lib/in-app-browsers.ts); in any other browser the page is left as it was sent.
import InAppSpy from 'inapp-spy';
import { appOf, IN_APP_BROWSERS, platformOf, wayOut } from '../lib/in-app-browsers.ts';

/** `template`'s text with `{app}` replaced by the app's name, isolated (a Latin name in an Arabic sentence). */
function say(element: Element | null, template: string | undefined, app: string): void {
  if (!element || !template) return;
  element.replaceChildren(
    ...template.split('{app}').flatMap((text, i) => {
      if (i === 0) return [text];
      const name = document.createElement('bdi');
      name.textContent = app;
      return [name, text];
    }),
  );
}

/** A button that copies `text` and says `done` in `status`, shown only where the clipboard can be written. */
function copier(button: HTMLButtonElement | null, status: Element | null, text: string, done: string | undefined) {
  if (!button || !(navigator.clipboard && typeof navigator.clipboard.writeText === 'function')) return;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      if (status) status.textContent = done ?? '';
    } catch {
      // The clipboard was refused: nothing to report.
    }
  });
}

function inApp(notice: HTMLElement): void {
  const key = appOf(InAppSpy().appKey, navigator.userAgent, (name) => name in window);
  if (!key) return;
  const app = IN_APP_BROWSERS[key];
  const platform = platformOf(navigator.userAgent);
  if (!platform || app.out[platform] === 'browser') return;
  const way = app.out[platform];
  // The page itself, without what the app added to its address (a tracking query) or a fragment.
  const page = location.origin + location.pathname;
  const out = wayOut(way, page);
  const strings = notice.dataset;
  say(notice.querySelector('[data-in-app-says]'), out ? strings.saysOut : strings.saysMenu, app.name);
  const open = notice.querySelector<HTMLAnchorElement>('[data-in-app-open]');
  if (open && out) {
    open.href = out;
    open.hidden = false;
  }
  const status = notice.querySelector('[data-in-app-status]');
  copier(notice.querySelector('[data-in-app-copy]'), status, page, strings.linkCopied);
  const save = document.querySelector<HTMLAnchorElement>('[data-save-contact]');
  if (save && !app.downloads[platform]) {
    const vcard = wayOut(way, new URL(save.getAttribute('href') ?? '', location.href).href);
    if (vcard) {
      save.href = vcard;
      save.removeAttribute('download');
    } else save.hidden = true;
    const contact = notice.querySelector<HTMLElement>('[data-in-app-contact]');
    if (contact) {
      say(
        contact.querySelector('[data-in-app-contact-says]'),
        vcard ? strings.contactOut : strings.contactMenu,
        app.name,
      );
      contact.hidden = false;
      copier(contact.querySelector('[data-in-app-copy-contact]'), status, strings.contact ?? '', strings.contactCopied);
    }
  }
  notice.hidden = false;
}

const notice = document.querySelector<HTMLElement>('[data-in-app]');
if (notice) inApp(notice);
