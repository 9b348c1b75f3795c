// The page of `microapp --ui web`: draws each frame the app sends on /events (the JSON objects `--ui json` writes)
// and posts the person's events to /event (the JSON events `--ui json` reads).
//
// Rules kept throughout: a feature's strings are only ever text (textContent, attribute values set as properties),
// never HTML and never a URL the browser follows; the host's chrome is drawn only outside #screen; drawing a frame
// keeps the element that has focus and what a person is typing.
'use strict';

(() => {
  const byId = (id) => document.getElementById(id);
  const page = {
    chrome: byId('chrome'),
    appName: byId('app-name'),
    whereSep: byId('where-sep'),
    where: byId('where'),
    originMark: byId('origin-mark'),
    connection: byId('connection'),
    who: byId('who'),
    version: byId('version'),
    back: byId('back'),
    tabs: byId('tabs'),
    tablist: byId('tablist'),
    address: byId('address'),
    addressInput: byId('address-input'),
    banners: byId('banners'),
    screen: byId('screen'),
    scroller: byId('screen-scroll'),
    title: byId('screen-title'),
    body: byId('screen-body'),
    alert: byId('alert'),
    alertTitle: byId('alert-title'),
    alertMessage: byId('alert-message'),
    alertActions: byId('alert-actions'),
    buildFailure: byId('build-failure'),
    buildFailureTitle: byId('build-failure-title'),
    buildFailureDetail: byId('build-failure-detail'),
    footer: byId('footer'),
    notice: byId('notice'),
    keys: byId('keys'),
    route: byId('route'),
  };

  /** What the page knows: the app's name, the frame on screen, and what focus and scrolling to keep. */
  const state = {
    appName: 'Microapps',
    frame: null,
    frames: 0,
    /** The focus a redraw took away (its element is gone): given back when an element with the key comes back. */
    lostFocus: null,
    /** How far each route's screen was scrolled, kept across loading states. */
    scrollByRoute: new Map(),
    /** What had focus when an alert came, and where focus goes once it is answered. */
    beforeAlert: null,
    returnFocus: null,
    /** The route the address bar shows until the person edits it. */
    addressEdited: false,
  };

  // ---- Sending the person's events, one at a time in order ------------------------------------------------------

  const outbox = [];
  let sending = false;

  /** Queues `event` for /event; an edit of a field replaces an edit of the same field still waiting. */
  function send(event) {
    const last = outbox[outbox.length - 1];
    if (event.type === 'input' && last && last.type === 'input' && last.id === event.id) {
      outbox[outbox.length - 1] = event;
    } else {
      outbox.push(event);
    }
    if (!sending) pump();
  }

  async function pump() {
    sending = true;
    while (outbox.length > 0) {
      const event = outbox.shift();
      try {
        const answer = await fetch('/event', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(event),
          credentials: 'same-origin',
          cache: 'no-store',
        });
        if (!answer.ok) await refused(answer);
      } catch (error) {
        // The event stream shows the lost connection; the event is dropped, as a person's tap on a dead app is.
      }
    }
    sending = false;
  }

  async function refused(answer) {
    const text = await answer.text();
    let problem;
    try {
      problem = JSON.parse(text);
    } catch (error) {
      problem = { code: `http-${answer.status}`, message: text.trim() || `the app answered ${answer.status}` };
    }
    showBanner(problem);
  }

  // ---- Small DOM helpers: every feature string goes through `text` ----------------------------------------------

  /** An element `tag` with `className` and, if given, `content` as a text node. */
  function make(tag, className, content) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (content !== undefined && content !== null) element.textContent = String(content);
    return element;
  }

  /** A `<bdi>` holding `content` as text: a feature's right-to-left override cannot reorder what is around it. */
  function isolated(content) {
    return make('bdi', null, content);
  }

  /** The key focus is kept by across redraws (`button:submit`, `row:characters:3`), or null. */
  function keyOf(element) {
    return element && element.dataset ? element.dataset.key || null : null;
  }

  function withKey(key) {
    for (const element of document.querySelectorAll('[data-key]')) {
      if (element.dataset.key === key) return element;
    }
    return null;
  }

  /** Whether `fresh` may take the place of `old` by updating it: same kind of node, same tag, same key and type. */
  function sameKind(old, fresh) {
    if (old.nodeType !== fresh.nodeType) return false;
    if (old.nodeType !== Node.ELEMENT_NODE) return true;
    if (old.tagName !== fresh.tagName || (old.dataset.key || '') !== (fresh.dataset.key || '')) return false;
    if (old.tagName === 'INPUT') return old.type === fresh.type;
    // A keyed element is the same whatever its look (the main button gains a class); others are told by their class.
    return Boolean(old.dataset.key) || old.className === fresh.className;
  }

  /** Makes `old` (on screen) look like `fresh` (just drawn) by updating it in place wherever the two trees agree,
   * so that a redraw keeps the elements a person is using: the focused field with its caret and composition, the
   * button being pressed (a click whose press and release land on two elements is no click), hover. An element kept
   * keeps its listeners, which are the fresh one's: only keyed elements have listeners, and the key names what they
   * send. */
  function morph(old, fresh) {
    for (const attribute of Array.from(old.attributes)) {
      if (!fresh.hasAttribute(attribute.name)) old.removeAttribute(attribute.name);
    }
    for (const attribute of Array.from(fresh.attributes)) {
      if (old.getAttribute(attribute.name) === attribute.value) continue;
      // A style attribute is the page's own, set through the CSSOM: copied the same way (the CSP refuses the other).
      if (attribute.name === 'style') {
        old.style.cssText = fresh.style.cssText;
      } else {
        old.setAttribute(attribute.name, attribute.value);
      }
    }
    if (old.tagName === 'INPUT' && old.value !== fresh.value) old.value = fresh.value;
    morphChildren(old, fresh);
  }

  /** Walks both lists of children together: a pair of the same kind is updated; an old child the fresh list no
   * longer has is removed; a fresh child with no old one is inserted. Nothing kept is moved (a moved element loses
   * its focus and its press). */
  function morphChildren(old, fresh) {
    const freshChildren = Array.from(fresh.childNodes);
    let cursor = old.firstChild;
    const update = (current, child) => {
      if (child.nodeType === Node.ELEMENT_NODE) {
        morph(current, child);
      } else if (current.data !== child.data) {
        current.data = child.data;
      }
    };
    freshChildren.forEach((child, index) => {
      if (cursor && sameKind(cursor, child)) {
        update(cursor, child);
        cursor = cursor.nextSibling;
        return;
      }
      let match = null;
      for (let later = cursor ? cursor.nextSibling : null; later && !match; later = later.nextSibling) {
        if (sameKind(later, child)) match = later;
      }
      const cursorWanted = cursor && freshChildren.slice(index + 1).some((next) => sameKind(cursor, next));
      if (match && !cursorWanted) {
        while (cursor !== match) {
          const gone = cursor;
          cursor = cursor.nextSibling;
          gone.remove();
        }
        update(cursor, child);
        cursor = cursor.nextSibling;
      } else {
        old.insertBefore(child, cursor);
      }
    });
    while (cursor) {
      const gone = cursor;
      cursor = cursor.nextSibling;
      gone.remove();
    }
  }

  /** Puts `children` in `container`: morphed into what is there when `keep`, else in its place. */
  function place(container, children, keep) {
    if (!keep) {
      container.replaceChildren(...children);
      return;
    }
    const fresh = container.cloneNode(false);
    fresh.append(...children);
    morph(container, fresh);
  }

  function folderOf(library) {
    if (!library.startsWith('/')) return library;
    const slash = library.lastIndexOf('/');
    return slash === 0 ? '/' : library.slice(0, slash);
  }

  /** The host's words for an untrusted feature's screen: `untrusted · lurker from /home/me/plugins`. */
  function untrustedMark(origin) {
    if (!origin || origin.trust !== 'untrusted') return null;
    return `untrusted · ${origin.feature} from ${folderOf(String(origin.library || ''))}`;
  }

  // ---- The host's chrome ------------------------------------------------------------------------------------------

  function isHostScreen(frame) {
    return frame.feature === 'microapp' && frame.version === 0;
  }

  function status(frame) {
    const mode = frame.mode === 'solo' ? 'solo · mocks' : frame.mode === 'preview' ? 'preview' : null;
    if (frame.account && mode) return `${mode} · ${frame.account}`;
    return frame.account || mode || 'signed out';
  }

  function drawChrome(frame) {
    const host = isHostScreen(frame);
    const mark = untrustedMark(frame.origin);
    page.appName.textContent = state.appName;
    page.where.replaceChildren(host || mark ? '' : isolated(frame.featureName));
    page.whereSep.hidden = host && !mark;
    page.where.hidden = Boolean(mark) || host;
    page.originMark.hidden = !mark;
    page.originMark.replaceChildren(mark ? isolated(mark) : '');
    page.who.replaceChildren(isolated(status(frame)));
    page.version.textContent = host ? '' : `v${frame.version}`;
    document.body.classList.toggle('untrusted', Boolean(mark));
    document.body.classList.toggle('host-screen', host);
    document.title = `${state.appName}${host ? '' : ` · ${mark || frame.featureName}`}`;

    page.back.hidden = !(frame.depth > 0);
    drawTabs(frame.tabs || []);
    if (document.activeElement !== page.addressInput || !state.addressEdited) {
      page.addressInput.value = frame.route;
      state.addressEdited = false;
    }
    page.route.replaceChildren(isolated(frame.route));
  }

  function drawTabs(tabs) {
    page.tabs.hidden = tabs.length === 0;
    const focused = keyOf(document.activeElement);
    const hasSelected = tabs.some((tab) => tab.selected);
    place(
      page.tablist,
      tabs.map((tab, index) => {
        const button = make('button', 'tab');
        button.type = 'button';
        button.setAttribute('role', 'tab');
        button.setAttribute('aria-selected', tab.selected ? 'true' : 'false');
        button.tabIndex = tab.selected || (!hasSelected && index === 0) ? 0 : -1;
        button.dataset.key = `tab:${tab.id}`;
        button.dataset.id = tab.id;
        button.append(isolated(tab.title));
        const mark = untrustedMark(tab.origin);
        if (mark) {
          button.classList.add('tab-untrusted');
          button.append(make('span', 'mark tab-mark', 'untrusted'));
          button.title = mark;
        }
        button.addEventListener('click', () => send({ type: 'tap', id: tab.id }));
        return button;
      }),
      true,
    );
    if (focused && focused.startsWith('tab:') && keyOf(document.activeElement) !== focused) {
      withKey(focused)?.focus({ preventScroll: true });
    }
  }

  // ---- The feature's screen ---------------------------------------------------------------------------------------

  /** What drawing one screen needs: the fields kept from the last drawing, the mark for secure fields, fresh ids. */
  class Drawing {
    constructor(keptFields, mark, title) {
      this.keptFields = keptFields;
      this.mark = mark;
      this.counter = 0;
      /** What names the next list: the last headline before it, else the screen's title. */
      this.heading = title;
    }

    nextID(prefix) {
      this.counter += 1;
      return `${prefix}-${this.counter}`;
    }

    elements(list) {
      return list.map((element) => this.element(element));
    }

    element(element) {
      switch (element && element.type) {
        case 'text':
          return this.text(element);
        case 'button':
          return this.button(element);
        case 'field':
          return this.field(element);
        case 'list':
          return this.list(element);
        case 'stack':
          return this.stack(element);
        default:
          return make('p', 'text text-error', 'This element cannot be drawn by this page.');
      }
    }

    text(text) {
      const style = ['headline', 'body', 'caption', 'error'].includes(text.style) ? text.style : 'body';
      const element = make(style === 'headline' ? 'h2' : 'p', `text text-${style}`, text.value);
      element.dir = 'auto';
      if (style === 'headline') this.heading = text.value;
      return element;
    }

    button(button) {
      const element = make('button', 'button');
      element.type = 'button';
      element.dataset.key = `button:${button.id}`;
      element.dataset.id = button.id;
      element.disabled = button.isEnabled === false;
      element.append(make('span', 'button-title', button.title));
      element.addEventListener('click', () => send({ type: 'tap', id: button.id }));
      return element;
    }

    field(field) {
      const container = make('div', 'field');
      const id = this.nextID('field');
      const label = make('label', 'field-label', field.label);
      label.htmlFor = id;
      label.dir = 'auto';
      const input = document.createElement('input');
      input.type = field.isSecure ? 'password' : 'text';
      input.addEventListener('input', (event) => {
        if (!event.isComposing) send({ type: 'input', id: input.dataset.id, text: input.value });
      });
      input.addEventListener('compositionend', () => send({ type: 'input', id: input.dataset.id, text: input.value }));
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && !event.isComposing) {
          event.preventDefault();
          submitAfter(input);
        }
      });
      input.id = id;
      input.className = 'input';
      input.dataset.key = `field:${field.id}`;
      input.dataset.id = field.id;
      input.placeholder = field.placeholder || '';
      input.autocomplete = 'off';
      input.spellcheck = false;
      input.dir = 'auto';
      // The field on screen keeps what a person is typing (focused), and a secure field what was typed until the app
      // empties it: a secure field leaves the app as dots, and is never filled with them.
      const shown = this.keptFields.get(field.id);
      const text = field.isSecure ? '' : String(field.text ?? '');
      if (shown && shown.type === input.type && (document.activeElement === shown || (field.isSecure && field.text))) {
        input.value = shown.value;
      } else {
        input.value = text;
      }
      const described = [];
      container.append(label, input);
      if (field.error) {
        const error = make('p', 'field-error', field.error);
        error.id = `${id}-error`;
        error.dir = 'auto';
        described.push(error.id);
        container.append(error);
        input.setAttribute('aria-invalid', 'true');
      } else {
        input.removeAttribute('aria-invalid');
      }
      if (field.isSecure && this.mark) {
        const mark = make('p', 'mark secure-mark');
        mark.id = `${id}-mark`;
        mark.append(isolated(`${this.mark} asks for this`));
        described.push(mark.id);
        container.append(mark);
      }
      if (described.length > 0) {
        input.setAttribute('aria-describedby', described.join(' '));
      } else {
        input.removeAttribute('aria-describedby');
      }
      return container;
    }

    list(list) {
      const items = Array.isArray(list.items) ? list.items : [];
      const container = make('div', 'list');
      if (items.length === 0) {
        container.append(make('p', 'text text-caption list-empty', 'No rows'));
      } else {
        const rows = make('div', 'rows');
        rows.setAttribute('role', 'listbox');
        rows.setAttribute('aria-label', this.heading || list.id);
        rows.dataset.key = `list:${list.id}`;
        rows.dataset.id = list.id;
        const columns = Math.max(0, ...items.map((item) => (Array.isArray(item.columns) ? item.columns.length : 0)));
        // Each row spans the list's columns (a subgrid), so titles and columns line up as in the terminal.
        rows.style.setProperty('--list-columns', `${'minmax(0, max-content) '.repeat(columns + 1)}1fr`);
        const focusable = Number.isInteger(list.selectedIndex) && list.selectedIndex < items.length ? list.selectedIndex : 0;
        items.forEach((item, index) => {
          const row = make('div', 'row');
          row.setAttribute('role', 'option');
          row.setAttribute('aria-selected', index === list.selectedIndex ? 'true' : 'false');
          row.setAttribute('aria-posinset', String(index + 1));
          row.setAttribute('aria-setsize', String(items.length));
          row.tabIndex = index === focusable ? 0 : -1;
          row.dataset.key = `row:${list.id}:${index}`;
          row.dataset.index = String(index);
          const title = make('span', 'cell cell-title', item.title);
          title.dir = 'auto';
          row.append(title);
          const cells = Array.isArray(item.columns) ? item.columns : [];
          for (let column = 0; column < columns; column += 1) {
            const cell = make('span', 'cell', column < cells.length ? cells[column] : '');
            cell.dir = 'auto';
            row.append(cell);
          }
          row.addEventListener('click', () => send({ type: 'select', id: list.id, index }));
          rows.append(row);
        });
        rows.addEventListener('keydown', (event) => moveInList(event, rows, list.id));
        container.append(rows);
      }
      if (list.footer) {
        const footer = make('p', 'list-footer', list.footer);
        footer.dir = 'auto';
        container.append(footer);
      }
      return container;
    }

    stack(stack) {
      const element = make('div', `stack stack-${stack.axis === 'horizontal' ? 'horizontal' : 'vertical'}`);
      element.append(...this.elements(Array.isArray(stack.children) ? stack.children : []));
      return element;
    }
  }

  /** Up, down, Home and End move among a list's rows; Enter or Space chooses the row. */
  function moveInList(event, rows, id) {
    const row = event.target.closest('[role="option"]');
    if (!row) return;
    const all = Array.from(rows.children);
    const index = all.indexOf(row);
    let next = null;
    switch (event.key) {
      case 'ArrowDown':
        next = all[Math.min(index + 1, all.length - 1)];
        break;
      case 'ArrowUp':
        next = all[Math.max(index - 1, 0)];
        break;
      case 'Home':
        next = all[0];
        break;
      case 'End':
        next = all[all.length - 1];
        break;
      case 'Enter':
      case ' ':
        event.preventDefault();
        send({ type: 'select', id, index });
        return;
      default:
        return;
    }
    event.preventDefault();
    for (const other of all) other.tabIndex = other === next ? 0 : -1;
    next.focus();
  }

  /** Enter in a field: a tap on the screen's first enabled button after it. */
  function submitAfter(input) {
    for (const button of page.body.querySelectorAll('button.button')) {
      if (button.disabled) continue;
      if (input.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING) {
        send({ type: 'tap', id: button.dataset.id });
        return;
      }
    }
  }

  function spinner(className) {
    const element = make('span', `spinner ${className || ''}`);
    element.setAttribute('aria-hidden', 'true');
    return element;
  }

  /** The elements of `screen`'s body in its state (the alert is drawn apart, over them). */
  function screenParts(screen, drawing) {
    const content = Array.isArray(screen.content) ? screen.content : [];
    const screenState = screen.state || { type: 'view' };
    const parts = [];
    if (screen.busy && screenState.type !== 'loading') {
      const busy = make('p', 'busy');
      busy.setAttribute('role', 'status');
      busy.append(spinner('spinner-small'), make('span', null, screen.busy));
      parts.push(busy);
    }
    switch (screenState.type) {
      case 'loading': {
        const loading = make('div', 'loading');
        loading.setAttribute('role', 'status');
        loading.append(spinner(), make('span', 'loading-message', screenState.message));
        parts.push(loading);
        break;
      }
      case 'error': {
        const panel = make('div', 'error-panel');
        panel.setAttribute('role', 'alert');
        const title = make('h2', 'error-title', screenState.title);
        title.dir = 'auto';
        const message = make('p', 'error-message', screenState.message);
        message.dir = 'auto';
        const actions = make('div', 'actions');
        actions.append(...drawing.elements((screenState.actions || []).map((action) => ({ type: 'button', ...action }))));
        panel.append(title, message, actions);
        parts.push(panel);
        break;
      }
      default:
        parts.push(...drawing.elements(content));
    }
    return parts;
  }

  function drawScreen(frame, previous) {
    const screen = frame.screen || { title: '', content: [], state: { type: 'view' } };
    const sameScreen = previous && previous.route === frame.route;
    const keptFields = new Map();
    if (sameScreen) {
      for (const input of page.body.querySelectorAll('input[data-id]')) keptFields.set(input.dataset.id, input);
    }
    const drawing = new Drawing(keptFields, isHostScreen(frame) ? null : untrustedMark(frame.origin), screen.title);
    const screenState = screen.state || { type: 'view' };

    page.title.textContent = screen.title;
    page.title.dir = 'auto';
    const parts = screenParts(screen, drawing);
    place(page.body, parts, sameScreen);
    // The first enabled button is the one Enter in a field taps: it looks like the screen's main action.
    const primary = page.body.querySelector('button.button:not(:disabled)');
    if (primary) primary.classList.add('button-primary');
    page.screen.setAttribute('aria-busy', screenState.type === 'loading' || screen.busy ? 'true' : 'false');
    page.screen.dataset.state = screenState.type;
    drawAlert(screenState.type === 'alert' ? screenState : null, drawing);
  }

  function drawAlert(alert, drawing) {
    const open = Boolean(alert);
    for (const element of [page.chrome, page.title, page.body, page.footer, page.buildFailure]) element.inert = open;
    document.body.classList.toggle('has-alert', open);
    if (!open) {
      if (page.alert.open) page.alert.close();
      page.alertActions.replaceChildren();
      return;
    }
    page.alertTitle.textContent = alert.title;
    page.alertMessage.textContent = alert.message;
    place(
      page.alertActions,
      (alert.actions || []).map((action) => drawing.button({ type: 'button', ...action })),
      page.alert.open,
    );
    page.alertActions.querySelector('button:not(:disabled)')?.classList.add('button-primary');
    // Shown without showModal: Esc must not close it (an alert needs an answer); the rest of the page is inert.
    if (!page.alert.open) page.alert.show();
  }

  // ---- Keeping focus and scrolling across redraws -----------------------------------------------------------------

  /** Gives focus back after a redraw: to the element of the same key, to one that comes back, or on a new screen to
   * its first control. Focus the person moved elsewhere is never taken. */
  function restoreFocus(frame, previous, focusedKey) {
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.isConnected;
    if (!lost) return;
    const routeChanged = !previous || previous.route !== frame.route;
    if (focusedKey) state.lostFocus = { key: focusedKey, route: previous ? previous.route : null };
    if (routeChanged && state.lostFocus && state.lostFocus.route !== frame.route) state.lostFocus = null;
    if (state.returnFocus) {
      // An alert was answered: focus goes back to what had it when the alert came (the button that asked).
      const opener = withKey(state.returnFocus);
      state.returnFocus = null;
      if (opener && !opener.disabled) {
        opener.focus();
        return;
      }
    }
    const wanted = state.lostFocus && withKey(state.lostFocus.key);
    if (wanted && !wanted.disabled && !wanted.inert && !wanted.closest('[inert]')) {
      wanted.focus();
      state.lostFocus = null;
      return;
    }
    if (page.alert.open) {
      page.alertActions.querySelector('button:not(:disabled)')?.focus();
      return;
    }
    if (routeChanged && (focusedKey || !previous) && frame.screen?.state?.type === 'view') {
      const first = page.body.querySelector('input, button:not(:disabled), [role="option"][tabindex="0"]');
      first?.focus({ preventScroll: true });
    }
  }

  /** Keeps each route's scroll position across redraws: where it was before this one, or, after a loading screen
   * (which is short and scrolls to the top), where it was before the loading. */
  function restoreScroll(frame, previous, before) {
    const loading = (value) => value?.screen?.state?.type === 'loading';
    if (!previous || previous.route !== frame.route) {
      page.scroller.scrollTop = 0;
    } else if (!loading(frame)) {
      const target = loading(previous) ? state.scrollByRoute.get(frame.route) ?? 0 : before;
      if (page.scroller.scrollTop !== target) page.scroller.scrollTop = target;
    }
    if (!loading(frame)) state.scrollByRoute.set(frame.route, page.scroller.scrollTop);
  }

  page.scroller.addEventListener('scroll', () => {
    const frame = state.frame;
    if (frame && frame.screen?.state?.type !== 'loading') state.scrollByRoute.set(frame.route, page.scroller.scrollTop);
  });

  document.addEventListener('focusin', (event) => {
    if (state.lostFocus && keyOf(event.target) !== state.lostFocus.key) state.lostFocus = null;
  });

  // ---- Frames, notices and errors ---------------------------------------------------------------------------------

  /** Problems about the screen on top, which leave with it. */
  const screenProblems = new Set(['screen-error', 'not-found', 'not-on-screen', 'navigation-refused', 'bad-event']);

  function drawFrame(frame) {
    const previous = state.frame;
    if (previous && previous.route !== frame.route) {
      // A problem sent before the frame it is about (the app writes notices first) stays with that frame.
      for (const banner of Array.from(page.banners.children)) {
        if (screenProblems.has(banner.dataset.code) && Number(banner.dataset.frames) < state.frames) banner.remove();
      }
    }
    const focusedKey = keyOf(document.activeElement);
    const scrolled = page.scroller.scrollTop;
    const hadAlert = previous?.screen?.state?.type === 'alert';
    const hasAlert = frame.screen?.state?.type === 'alert';
    if (hasAlert && !hadAlert) state.beforeAlert = focusedKey;
    if (hadAlert && !hasAlert) state.returnFocus = state.beforeAlert;
    state.frame = frame;
    state.frames += 1;
    drawChrome(frame);
    drawScreen(frame, previous);
    restoreFocus(frame, previous, focusedKey);
    restoreScroll(frame, previous, scrolled);
    document.body.dataset.route = frame.route;
    document.body.dataset.frames = String(state.frames);
  }

  const noticeSymbols = { swapped: '✓', 'rolled-back': '↶', redirect: '→', built: '✓', building: '…' };
  const stateWords = { kept: 'state kept', reset: 'state reset', none: 'no state to keep' };

  function showNotice(notice) {
    // `ready` is for scripts (every feature started after the first frame answered): the line keeps what it says.
    if (notice.code === 'ready') return;
    switch (notice.code) {
      case 'built':
      case 'swapped':
      case 'rolled-back':
        hideBuildFailure();
        break;
      default:
        break;
    }
    const line = make('span', 'notice-line');
    line.dataset.code = String(notice.code);
    const symbol = noticeSymbols[notice.code] || '·';
    line.append(make('span', 'notice-symbol', symbol), isolated(notice.message));
    // The badge says what became of the state, unless the host's message already says it in words.
    if (stateWords[notice.state] && !String(notice.message).includes(`(${stateWords[notice.state]})`)) {
      line.append(make('span', `notice-state notice-state-${notice.state}`, stateWords[notice.state]));
    }
    page.notice.replaceChildren(line);
  }

  function showBuildFailure(problem) {
    page.buildFailure.hidden = false;
    page.buildFailureTitle.replaceChildren(isolated(problem.message));
    const lines = Array.isArray(problem.detail) ? problem.detail : [];
    page.buildFailureDetail.textContent = lines.join('\n');
    page.buildFailureDetail.hidden = lines.length === 0;
    document.body.classList.add('has-build-failure');
  }

  function hideBuildFailure() {
    page.buildFailure.hidden = true;
    document.body.classList.remove('has-build-failure');
  }

  /** A problem the app reported (or a refused post) as a banner in the chrome; the newest three stay. */
  function showBanner(problem) {
    const banner = make('div', 'banner');
    banner.dataset.code = String(problem.code || 'error');
    banner.dataset.frames = String(state.frames);
    const words = make('p', 'banner-words');
    words.append(make('span', 'banner-symbol', '!'), isolated(problem.message || ''));
    if (problem.fix) words.append(make('span', 'banner-fix', ' — to fix: '), isolated(problem.fix));
    const dismiss = make('button', 'chrome-button banner-dismiss', 'Dismiss');
    dismiss.type = 'button';
    dismiss.addEventListener('click', () => banner.remove());
    banner.append(words, dismiss);
    page.banners.prepend(banner);
    while (page.banners.children.length > 3) page.banners.lastElementChild.remove();
  }

  function showProblem(problem) {
    if (problem.code === 'build-failed') {
      showBuildFailure(problem);
    } else {
      showBanner(problem);
    }
  }

  function receive(kind, data) {
    let object;
    try {
      object = JSON.parse(data);
    } catch (error) {
      return;
    }
    try {
      if (kind === 'hello') {
        state.appName = String(object.app || 'Microapps');
        page.appName.textContent = state.appName;
        // The host's own link to its drawing of the dependency graph (`run` only): never a feature's URL.
        byId('graph-link').hidden = object.graph !== true;
      } else if (kind === 'gallery') {
        drawGallery(object);
      } else if (kind === 'live') {
        showLive(object);
      } else if (kind === 'frame' && object.type === 'frame') {
        drawFrame(object);
      } else if (object.type === 'notice') {
        showNotice(object);
      } else if (object.type === 'error') {
        showProblem(object);
      }
    } catch (error) {
      showBanner({ code: 'page-error', message: `The page could not draw what the app sent: ${error}` });
    }
  }

  // ---- The gallery of previews (`microapp preview --ui web`) --------------------------------------------------------

  /** One preview as a card: its names, the screen drawn inert (nothing in it reaches the app), the solo command. */
  function drawCard(card) {
    const screen = card.screen || { title: '', content: [], state: { type: 'view' } };
    const screenState = screen.state || { type: 'view' };
    const element = make('article', 'card');
    element.dataset.feature = String(card.featureName);
    element.dataset.state = String(card.state);
    element.dataset.name = `${card.feature}/${card.name}`;
    const heading = make('header', 'card-heading');
    heading.append(
      make('span', 'card-feature', card.featureName),
      make('span', 'card-state', card.state),
      make('span', 'card-route', card.route),
    );
    if (card.variant) heading.append(make('span', 'card-variant', card.variant));
    const body = make('div', 'card-screen');
    body.inert = true;
    const drawing = new Drawing(new Map(), null, screen.title);
    const title = make('h2', 'card-title', screen.title);
    title.dir = 'auto';
    body.append(title, ...screenParts(screen, drawing));
    if (screenState.type === 'alert') {
      const alert = make('div', 'card-alert');
      alert.append(
        make('h3', 'alert-title', screenState.title),
        make('p', 'alert-message', screenState.message),
        ...drawing.elements((screenState.actions || []).map((action) => ({ type: 'button', ...action }))),
      );
      body.append(alert);
    }
    const solo = make('p', 'card-solo');
    solo.append(make('span', null, 'Open it live: '), make('code', null, card.solo));
    // The host starts that command itself when asked, and says the live page's address in a `live` event.
    const live = make('button', 'chrome-button card-live', 'Open live');
    live.type = 'button';
    live.addEventListener('click', () => {
      live.disabled = true;
      live.textContent = 'Starting…';
      fetch('/live', { method: 'POST', body: JSON.stringify({ name: element.dataset.name }) }).catch(() => {});
    });
    const started = liveCards.get(element.dataset.name);
    element.append(heading, body, solo, started ? liveResult(started) : live);
    return element;
  }

  /** What each card's live app came to (`live` events by card name): kept, so a redrawn gallery still shows it. */
  const liveCards = new Map();

  /** A card's live app has started (its link, an address of this machine's host) or could not start. */
  function showLive(live) {
    liveCards.set(String(live.name), live);
    const card = Array.from(document.querySelectorAll('#gallery .card')).find((c) => c.dataset.name === live.name);
    const button = card?.querySelector('.card-live');
    if (card && button) button.replaceWith(liveResult(live));
  }

  /** The link to a card's live app, or why it could not start. */
  function liveResult(live) {
    const url = String(live.url || '');
    if (url.startsWith('http://127.0.0.1:')) {
      const link = make('a', 'chrome-button card-live card-live-link', 'Open live ↗');
      link.href = url;
      link.target = '_blank';
      link.rel = 'noopener';
      return link;
    }
    return make('p', 'card-live-error', String(live.error || 'It could not start.'));
  }

  /** A filter of the gallery: a labelled choice of every value cards have for `key`, "all" first. */
  function galleryFilter(label, key, cards, apply) {
    const container = make('label', 'gallery-filter', label);
    const select = document.createElement('select');
    select.dataset.filter = key;
    const values = Array.from(new Set(cards.map((card) => String(card[key]))));
    for (const value of ['all', ...values]) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = value;
      select.append(option);
    }
    select.addEventListener('change', apply);
    container.append(select);
    return container;
  }

  /** Shows every card instead of the app's screen, with filters by feature and by state; drawn again (a feature
   * rebuilt under `--watch`), the filters keep what the person chose. */
  function drawGallery(cards) {
    if (!Array.isArray(cards)) return;
    document.body.classList.add('gallery-mode');
    const section = byId('gallery') || make('section', 'gallery');
    const chosenBefore = {};
    for (const select of section.querySelectorAll('select[data-filter]')) {
      chosenBefore[select.dataset.filter] = select.value;
    }
    section.id = 'gallery';
    section.setAttribute('aria-label', 'Previews');
    const grid = make('div', 'gallery-grid');
    const drawn = cards.map(drawCard);
    grid.append(...drawn);
    const count = make('p', 'gallery-count');
    const apply = () => {
      const chosen = {};
      for (const select of section.querySelectorAll('select[data-filter]')) chosen[select.dataset.filter] = select.value;
      let shown = 0;
      for (const card of drawn) {
        const visible =
          (chosen.featureName === 'all' || card.dataset.feature === chosen.featureName) &&
          (chosen.state === 'all' || card.dataset.state === chosen.state);
        card.hidden = !visible;
        if (visible) shown += 1;
      }
      count.textContent = `${shown} of ${drawn.length} previews`;
    };
    const filters = make('div', 'gallery-filters');
    filters.append(
      galleryFilter('Feature', 'featureName', cards, apply),
      galleryFilter('State', 'state', cards, apply),
      count,
    );
    for (const select of filters.querySelectorAll('select[data-filter]')) {
      const before = chosenBefore[select.dataset.filter];
      if (before && Array.from(select.options).some((option) => option.value === before)) select.value = before;
    }
    section.replaceChildren(filters, grid);
    if (!section.isConnected) page.screen.after(section);
    apply();
  }

  // ---- The event stream, reconnecting when it drops ---------------------------------------------------------------

  function setConnection(words, connected) {
    page.connection.textContent = words;
    page.connection.hidden = connected;
    document.body.dataset.connected = connected ? 'true' : 'false';
  }

  /** How long to wait before the next try: short at first, at most 4 s, back to short once a stream opened. */
  let retryDelay = 250;

  function connect() {
    const events = new EventSource('/events');
    const opened = () => {
      retryDelay = 250;
      setConnection('', true);
    };
    events.addEventListener('open', opened);
    for (const kind of ['hello', 'gallery', 'live', 'frame', 'notice']) {
      events.addEventListener(kind, (message) => {
        opened();
        receive(kind, message.data);
      });
    }
    events.addEventListener('error', () => {
      // The page reconnects itself (EventSource's own retry waits seconds, and gives up on a refusal): a restarted
      // app serves at the same address, and its first event is the frame on screen.
      events.close();
      setConnection('reconnecting…', false);
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 4000);
    });
  }

  // ---- The chrome's controls and the keyboard ---------------------------------------------------------------------

  page.back.addEventListener('click', () => send({ type: 'back' }));
  page.address.addEventListener('submit', (event) => {
    event.preventDefault();
    const url = page.addressInput.value.trim();
    if (url) send({ type: 'open', url });
    state.addressEdited = false;
  });
  page.addressInput.addEventListener('input', () => {
    state.addressEdited = true;
  });
  page.tablist.addEventListener('keydown', (event) => {
    const tabs = Array.from(page.tablist.children);
    const index = tabs.indexOf(document.activeElement);
    if (index < 0) return;
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const next = tabs[(index + step + tabs.length) % tabs.length];
    for (const tab of tabs) tab.tabIndex = tab === next ? 0 : -1;
    next.focus();
  });
  page.alert.addEventListener('cancel', (event) => event.preventDefault());
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    if (page.alert.open) {
      event.preventDefault();
      return;
    }
    if (document.activeElement === page.addressInput && state.addressEdited) {
      state.addressEdited = false;
      if (state.frame) page.addressInput.value = state.frame.route;
      return;
    }
    if (state.frame && state.frame.depth > 0) {
      event.preventDefault();
      send({ type: 'back' });
    }
  });

  setConnection('connecting…', false);
  connect();
})();
