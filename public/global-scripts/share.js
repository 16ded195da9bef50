// The share button of profile and card pages, as progressive enhancement: the page works without it. Uses the Web
// Share API where the browser has it, and copies the link to the clipboard otherwise; says what happened in a
// polite live region. No inline script: the CSP allows only this origin's scripts.
(() => {
  'use strict';
  for (const button of document.querySelectorAll('button[data-share-url]')) {
    const url = button.dataset.shareUrl;
    const status = button.parentElement && button.parentElement.querySelector('.share-status');
    const canShare = typeof navigator.share === 'function';
    const canCopy = navigator.clipboard && typeof navigator.clipboard.writeText === 'function';
    if (!url || (!canShare && !canCopy)) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        if (canShare) {
          await navigator.share({ url, title: button.dataset.shareTitle || document.title });
          return;
        }
        await navigator.clipboard.writeText(url);
        if (status) status.textContent = button.dataset.copied || '';
      } catch (err) {
        // The person closed the share sheet, or the clipboard was refused: nothing to report.
        if (err && err.name !== 'AbortError' && status) status.textContent = '';
      }
    });
  }
})();
