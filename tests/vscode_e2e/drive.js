// Opens code-server's workbench in headless Chromium, which is what starts VS Code's extension
// host, and keeps it open until this process gets SIGTERM. Prints the extension host's console.
// usage: node drive.js URL      (NODE_PATH must reach playwright-core; $CHROMIUM is the browser)
const { chromium } = require('playwright-core');

const [url] = process.argv.slice(2);
let browser;

async function main() {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
  });
  // Clipboard access, as a person's browser grants it: the copy commands write to it.
  const context = await browser.newContext({
    viewport: { width: 1400, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    const text = m.text();
    if (/Extension Host|maestro|Maestro|[Cc]opilot/.test(text)) console.log('[workbench]', text.replace(/%c|color:\s*\w*;?/g, '').trim());
  });
  // $SEED_STORAGE: {key: value} written into the workbench's global state (IndexedDB) before
  // the workbench first loads, from a page of the same origin. It is how the built-in Copilot
  // Chat stays enabled: VS Code disables it on a first start whose chat setup is not done,
  // unless its one-time migration key says the migration already ran.
  if (process.env.SEED_STORAGE) {
    await page.goto(new URL('/healthz', url).href, { waitUntil: 'domcontentloaded' });
    await page.evaluate((items) => new Promise((resolve, reject) => {
      const open = indexedDB.open('vscode-web-state-db-global');
      open.onupgradeneeded = () => open.result.createObjectStore('ItemTable');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction('ItemTable', 'readwrite');
        for (const [key, value] of Object.entries(items)) tx.objectStore('ItemTable').put(value, key);
        tx.oncomplete = () => { db.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
    }), JSON.parse(process.env.SEED_STORAGE));
    console.log('[drive] storage seeded');
  }
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  console.log('[drive] workbench loaded');
  // What a person sees: the Maestro Bridge status bar item's text, written to $STATUS_FILE.
  if (process.env.STATUS_FILE) {
    const fs = require('fs');
    const item = page.locator('[id="maestro.maestro-bridge.maestroBridge.status"]');
    setInterval(() => {
      item.first().innerText({ timeout: 500 }).then(
        (text) => fs.writeFileSync(process.env.STATUS_FILE, text),
        () => undefined,
      );
    }, 300);
  }
  // A person's click: when $CLICK_FILE names a button, click it on a notification, write the
  // notification's message to $CLICK_FILE.message, then remove $CLICK_FILE to say so.
  if (process.env.CLICK_FILE) {
    const fs = require('fs');
    const file = process.env.CLICK_FILE;
    let busy = false;
    setInterval(() => {
      if (busy || !fs.existsSync(file)) return;
      busy = true;
      const label = fs.readFileSync(file, 'utf8').trim();
      const toast = page.locator('.notifications-toasts .notification-list-item')
        .filter({ has: page.getByRole('button', { name: label }) }).first();
      toast.locator('.notification-list-item-message').innerText({ timeout: 1000 })
        .then((message) => toast.getByRole('button', { name: label }).first().click({ timeout: 1000 }).then(() => {
          fs.writeFileSync(`${file}.message`, message);
          fs.rmSync(file);
          console.log(`[drive] clicked ${label}`);
        }))
        .catch(() => undefined)
        .finally(() => { busy = false; });
    }, 300);
  }
  // A person's answer to a modal dialog (VS Code's own, in the page, e.g. the language-model
  // access it asks to allow): when $DIALOG_FILE names a button, click it on the dialog once one
  // shows, write the dialog's message and detail to $DIALOG_FILE.message, then remove
  // $DIALOG_FILE to say so.
  if (process.env.DIALOG_FILE) {
    const fs = require('fs');
    const file = process.env.DIALOG_FILE;
    let busy = false;
    setInterval(() => {
      if (busy || !fs.existsSync(file)) return;
      busy = true;
      const label = fs.readFileSync(file, 'utf8').trim();
      const dialog = page.locator('.monaco-dialog-box').first();
      const button = dialog.locator('.dialog-buttons').getByRole('button', { name: label, exact: true }).first();
      dialog.locator('.dialog-message-row').innerText({ timeout: 1000 })
        .then((message) => button.click({ timeout: 1000 }).then(() => {
          fs.writeFileSync(`${file}.message`, message);
          fs.rmSync(file);
          console.log(`[drive] clicked ${label} on the dialog: ${message.replace(/\s+/g, ' ')}`);
        }))
        .catch(() => undefined)
        .finally(() => { busy = false; });
    }, 300);
  }
  // A person's pick in a quick pick (a command's list of choices): when $PICK_FILE holds a
  // text, click the first item of the open quick pick whose text contains it, write the item's
  // text to $PICK_FILE.message, then remove $PICK_FILE to say so.
  if (process.env.PICK_FILE) {
    const fs = require('fs');
    const file = process.env.PICK_FILE;
    let busy = false;
    setInterval(() => {
      if (busy || !fs.existsSync(file)) return;
      busy = true;
      const wanted = fs.readFileSync(file, 'utf8').trim();
      const item = page.locator('.quick-input-widget .quick-input-list .monaco-list-row')
        .filter({ hasText: wanted }).first();
      item.innerText({ timeout: 1000 })
        .then((text) => item.click({ timeout: 1000 }).then(() => {
          fs.writeFileSync(`${file}.message`, text);
          fs.rmSync(file);
          console.log(`[drive] picked ${text.replace(/\s+/g, ' ')}`);
        }))
        .catch(() => undefined)
        .finally(() => { busy = false; });
    }, 300);
  }
  // The frames of the workbench (webviews and the pages they frame), written to $FRAMES_FILE
  // as [{url, usage}]: for a frame of the bridge's usage page, what its Today card shows.
  if (process.env.FRAMES_FILE) {
    const fs = require('fs');
    let busy = false;
    const usageOf = (frame) => frame.evaluate(() => ({
      updated: document.body.dataset.updated || '',
      requests: (document.querySelector('#today dd[data-field=requests]') || {}).textContent || '',
    })).catch(() => null);
    setInterval(() => {
      if (busy) return;
      busy = true;
      Promise.all(page.frames().map(async (frame) => {
        const url = frame.url();
        return { url, usage: /\/usage(#|$)/.test(url) ? await usageOf(frame) : null };
      }))
        .then((frames) => fs.writeFileSync(process.env.FRAMES_FILE, JSON.stringify(frames)), () => undefined)
        .finally(() => { busy = false; });
    }, 500);
  }
  if (process.env.SCREENSHOT) {
    setTimeout(() => void page.screenshot({ path: process.env.SCREENSHOT }).catch(() => undefined), 15000);
  }
}

process.on('SIGTERM', () => {
  void (browser ? browser.close() : Promise.resolve()).finally(() => process.exit(0));
});
main().catch((err) => {
  console.error('[drive] failed:', err);
  process.exit(2);
});
