/*! Intake browser helper: <form data-intake> posts without leaving the page. No dependencies. MIT. */
/* global window, document, fetch, FormData, CSS, CustomEvent, HTMLFormElement, location */
// Served as /intake.js by every Intake server and shipped in @intake/sdk (browser/intake.js): one file, no
// build step, plain ES2019 so it runs as written. docs/form-features.md ("Browser helper") has the choices.
(() => {
  'use strict';
  if (window.Intake) return; // included twice: the first copy already listens

  const TEXT = {
    sending: 'Sending…',
    success: 'Thank you! Your message has been sent.',
    network: 'The form could not be sent. Check your connection and try again.',
    error: 'The form could not be sent. Please try again.',
  };
  const forms = new WeakMap(); // form → { status, notes, marked, busy }
  let seq = 0;

  /** `href` resolved against `base`, when it is an http(s) URL (never javascript:, data:, …). */
  function web(href, base) {
    try {
      const u = new URL(href, base);
      return /^https?:$/.test(u.protocol) ? u : null;
    } catch {
      return null;
    }
  }
  // The public endpoint of the Intake server this script came from (`<its origin and folder>/f/`), or of
  // the one its tag names in data-intake-origin (a copy served from elsewhere): forms post there or nowhere.
  const me = document.currentScript;
  const endpoint = me && web('f/', me.getAttribute('data-intake-origin') || me.src);

  /** A message the page may override per form: data-intake-success, -sending, -network, -error. */
  const text = (form, key) => form.getAttribute('data-intake-' + key) || TEXT[key];

  function enhance(form) {
    let state = forms.get(form);
    if (state) return state;
    form.setAttribute('data-intake', form.getAttribute('data-intake') || '');
    // Announcements need a live region that is already in the page when its text changes.
    let status = form.querySelector('[data-intake-status]');
    if (!status) {
      status = document.createElement('div');
      status.setAttribute('data-intake-status', '');
      form.appendChild(status);
    }
    if (!status.hasAttribute('role')) status.setAttribute('role', 'status');
    if (!status.hasAttribute('aria-live')) status.setAttribute('aria-live', 'polite');
    state = { status, notes: [], marked: [], busy: false };
    forms.set(form, state);
    return state;
  }

  function say(state, message, kind) {
    state.status.textContent = message;
    state.status.setAttribute('data-intake-state', kind);
  }

  function emit(form, name, detail) {
    form.dispatchEvent(new CustomEvent('intake:' + name, { bubbles: true, detail }));
  }

  /** The controls a field's messages belong to: every checkbox of a group, never a hidden input. */
  const controlsNamed = (form, name) =>
    Array.prototype.filter.call(
      form.elements,
      (el) => el.name === name && el.type !== 'hidden' && el.tagName !== 'FIELDSET',
    );

  function clearErrors(state) {
    state.notes.forEach((note) =>
      note.hasAttribute('data-intake-error-for') ? (note.textContent = '') : note.remove(),
    );
    state.marked.forEach(([el, describedBy, invalid]) => {
      restore(el, 'aria-describedby', describedBy);
      restore(el, 'aria-invalid', invalid);
    });
    state.notes = [];
    state.marked = [];
  }

  function restore(el, name, value) {
    if (value === null) el.removeAttribute(name);
    else el.setAttribute(name, value);
  }

  /** Each field's messages next to its input, linked by aria-describedby; focus on the first bad field. */
  function showFieldErrors(form, state, body) {
    const loose = [];
    Object.keys(body.fields).forEach((name) => {
      const message = [].concat(body.fields[name]).join(' ');
      const controls = controlsNamed(form, name);
      if (!controls.length) return void loose.push(message);
      let note = form.querySelector('[data-intake-error-for="' + CSS.escape(name) + '"]');
      if (!note) {
        note = document.createElement('div');
        note.className = 'intake-error';
        const last = controls[controls.length - 1];
        // After the label when the input sits inside one, so the message never splits label and input.
        (last.closest('label') || last).insertAdjacentElement('afterend', note);
      }
      note.id = note.id || 'intake-error-' + ++seq;
      note.textContent = message;
      state.notes.push(note);
      controls.forEach((el) => {
        const describedBy = el.getAttribute('aria-describedby');
        state.marked.push([el, describedBy, el.getAttribute('aria-invalid')]);
        el.setAttribute('aria-invalid', 'true');
        el.setAttribute('aria-describedby', describedBy ? describedBy + ' ' + note.id : note.id);
      });
    });
    // The summary is announced; messages with no input to sit beside are in it too, so none is lost.
    say(state, [body.message || text(form, 'error')].concat(loose).join(' '), 'error');
    const bad = state.marked.map((m) => m[0]);
    const first = Array.prototype.find.call(form.elements, (el) => bad.indexOf(el) >= 0);
    if (first) first.focus();
  }

  async function send(form, submitter) {
    const state = enhance(form);
    if (state.busy) return;
    // Built before the buttons are disabled (disabled controls are not posted); files and CAPTCHA tokens
    // (cf-turnstile-response, h-captcha-response, g-recaptcha-response) go as they are.
    const body = new FormData(form, submitter);
    // getAttribute, not form.action: an input named "action" would shadow the property.
    const action = web(
      (submitter && submitter.getAttribute('formaction')) || form.getAttribute('action') || '',
      document.baseURI,
    );
    // Only Intake's own endpoint (`…/f/{form}`): the helper never carries a form's data anywhere else.
    const ours = endpoint && action && action.origin === endpoint.origin && !action.pathname.indexOf(endpoint.pathname);
    if (!ours || !/^[\w-]+\/?$/.test(action.pathname.slice(endpoint.pathname.length))) {
      say(state, text(form, 'error'), 'error');
      return emit(form, 'error', { status: 0, body: null });
    }
    // Where to go after a good post: posted as `_next`, so the server's origin rule decides a cross-origin one.
    const next = form.getAttribute('data-intake-redirect') || (form.elements.namedItem('_next') || {}).value;
    const to = next && web(next, location.href);
    if (to && !body.has('_next')) body.set('_next', to.href);
    const buttons = Array.prototype.filter.call(form.elements, (el) => el.type === 'submit' && !el.disabled);
    clearErrors(state);
    state.busy = true;
    buttons.forEach((b) => (b.disabled = true));
    form.setAttribute('aria-busy', 'true');
    say(state, text(form, 'sending'), 'sending');
    let res = null;
    let data = {};
    try {
      res = await fetch(action.href, { method: 'POST', body, headers: { Accept: 'application/json' } });
      data = (await res.json().catch(() => null)) || {};
    } catch {
      // no answer (offline, blocked, or refused by CORS): res stays null
    }
    state.busy = false;
    buttons.forEach((b) => (b.disabled = false));
    form.removeAttribute('aria-busy');

    if (!res) {
      say(state, text(form, 'network'), 'error');
      return emit(form, 'error', { status: 0, body: null });
    }
    if (res.ok) {
      emit(form, 'success', { status: res.status, body: data });
      // Followed only as http(s), on the page's own origin or as the server allowed it (its `redirect`).
      const allowed = typeof data.redirect === 'string' && web(data.redirect, location.href);
      if (to && (to.origin === location.origin || (allowed && allowed.href === to.href)))
        return location.assign(to.href);
      form.reset();
      return say(state, text(form, 'success'), 'success');
    }
    if (data.fields && typeof data.fields === 'object' && !Array.isArray(data.fields))
      showFieldErrors(form, state, data);
    else say(state, typeof data.message === 'string' ? data.message : text(form, 'error'), 'error');
    emit(form, 'error', { status: res.status, body: data });
  }

  // One listener for every form, present or added later; a page's own handler that cancels the submit wins.
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || !form.hasAttribute('data-intake')) return;
    event.preventDefault();
    send(form, event.submitter);
  });

  const enhanceAll = () => document.querySelectorAll('form[data-intake]').forEach(enhance);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', enhanceAll);
  else enhanceAll();

  window.Intake = { enhance: (form) => void enhance(form), version: 1 };
})();
