// cellsafe studio: the page's behaviour. The job is kept as the keys of a TOML job
// (see `job()`); the server checks and runs it through cellsafe's job layer and answers
// errors by key, which are shown at the field that sets that key.
'use strict';

const $ = (id) => document.getElementById(id);
const ROLES = ['insensitive', 'identifying', 'quasi-identifying', 'sensitive', 'semi-sensitive'];
const MODELS = {
  'k-anonymity': [['k', '5']],
  'distinct-l-diversity': [['attribute', ''], ['l', '2']],
  'entropy-l-diversity': [['attribute', ''], ['l', '2']],
  'recursive-cl-diversity': [['attribute', ''], ['c', '4'], ['l', '2']],
  't-closeness': [['attribute', ''], ['t', '0.2'], ['distance', 'equal']],
  'delta-disclosure': [['attribute', ''], ['delta', '1.5']],
  'beta-likeness': [['attribute', ''], ['beta', '2']],
  'average-risk': [['threshold', '0.05']],
  'sample-uniqueness': [['threshold', '0.01']],
};
const KINDS = ['intervals', 'mask', 'date', 'groups', 'suppress', 'file', 'none'];
// every call carries the token the page was opened with (there is no cookie)
const TOKEN = new URLSearchParams(location.search).get('token') || '';
let table = null;      // the loaded table's profile
let chosenNode = null; // a node of the Pareto front being released (its levels)
const OBJECTIVES = {
  'class-size/glm': [{ property: 'class-size', index: 'min' }, { property: 'glm', index: 'sum' }],
  'class-size/loss': [{ property: 'class-size', index: 'min' }, { metric: 'loss' }],
};
let polling = null;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

async function call(method, url, body, raw) {
  const init = { method, headers: { Authorization: 'Bearer ' + TOKEN } };
  if (raw !== undefined) { init.body = raw; }
  else if (body !== undefined) { init.body = JSON.stringify(body); init.headers['Content-Type'] = 'application/json'; }
  const r = await fetch(url, init);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: { key: '', message: r.status + ' ' + r.statusText } }; }
  return data;
}

// ---- errors at their fields ------------------------------------------------------------

function clearErrors() {
  for (const e of document.querySelectorAll('.error[data-for]')) { e.textContent = ''; }
  $('general-error').hidden = true;
  for (const e of document.querySelectorAll('.invalid')) e.classList.remove('invalid');
}

// the element showing errors of `key`: the one for that key, or for the longest key above it
function errorPlace(key) {
  let best = null, len = -1;
  for (const e of document.querySelectorAll('.error[data-for]')) {
    const k = e.dataset.for;
    const above = key === k || key.startsWith(k + '.') || key.startsWith(k + '[');
    if (above && k.length > len) { best = e; len = k.length; }
  }
  return best;
}

function showErrors(errors) {
  clearErrors();
  for (const err of errors) {
    const place = err.key ? errorPlace(err.key) : null;
    if (place) {
      place.textContent = err.message;
      const field = place.previousElementSibling;
      if (field) field.classList.add('invalid');
      place.scrollIntoView({ block: 'center' });
    } else {
      const g = $('general-error');
      g.textContent = (err.key ? err.key + ': ' : '') + err.message;
      g.hidden = false;
    }
  }
}

// ---- the table ---------------------------------------------------------------------------

async function upload() {
  const file = $('upload-file').files[0];
  if (!file) { showErrors([{ key: '', message: 'choose a file first' }]); return; }
  const data = await call('POST', '/api/upload?kind=table&name=' + encodeURIComponent(file.name), undefined, file);
  loaded(data);
}

async function openPath() {
  loaded(await call('POST', '/api/open', { path: $('path').value }));
}

async function reload() {
  const missing = $('missing').value.split(',').map((s) => s.trim()).filter((s) => s);
  loaded(await call('POST', '/api/table', { delimiter: $('delimiter').value, missing }));
}

function loaded(data) {
  if (data.error) { showErrors([data.error]); return; }
  clearErrors();
  table = data.table;
  $('table-info').hidden = false;
  $('table-summary').textContent = `${table.name}: ${table.rows.toLocaleString('en')} rows, ${table.columns.length} columns (${table.format})`;
  $('csv-options').hidden = table.format !== 'csv';
  if (table.format === 'csv') $('delimiter').value = table.delimiter;
  const body = $('columns').querySelector('tbody');
  const old = roles();
  body.replaceChildren();
  table.columns.forEach((c, i) => {
    const select = el('select', { id: 'role-' + i, 'data-column': c.name, 'data-key': 'attributes.' + c.name + '.role' });
    for (const r of ROLES) select.append(el('option', { value: r, text: r }));
    select.value = old[c.name] || 'insensitive';
    select.addEventListener('change', rolesChanged);
    const flag = el('select', { id: 'flag-' + i, class: 'flag', 'data-column': c.name, hidden: '' });
    for (const other of table.columns) flag.append(el('option', { value: other.name, text: 'flags: ' + other.name }));
    const top = c.top.map(([v, n]) => `${v === '' ? '(empty)' : v} (${n})`).join(', ');
    const kind = c.declared ? `${c.kind} (${c.declared})` : c.kind;
    body.append(el('tr', {},
      el('td', { text: c.name }), el('td', { text: kind }), el('td', { text: String(c.distinct) }),
      el('td', { class: 'values', text: top }),
      el('td', {}, select, flag, el('span', { class: 'error', 'data-for': 'attributes.' + c.name }))));
  });
  for (const id of ['step-roles', 'step-hierarchies', 'step-models', 'step-run']) $(id).hidden = false;
  if ($('models').children.length === 0) addModel('k-anonymity');
  if (!$('seed').value) $('seed').value = String(randomSeed());
  rolesChanged();
}

function randomSeed() {
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return (a[0] & 0x1fffff) * 4294967296 + a[1];
}

// maps keyed by column names have no prototype: a column may be called `constructor`
function roles() {
  const out = Object.create(null);
  for (const s of document.querySelectorAll('select[id^="role-"]')) out[s.dataset.column] = s.value;
  return out;
}

function columnsWith(role) {
  return Object.entries(roles()).filter(([, r]) => r === role).map(([c]) => c);
}

// ---- hierarchies -------------------------------------------------------------------------

function rolesChanged() {
  for (const f of document.querySelectorAll('select.flag')) {
    f.hidden = roles()[f.dataset.column] !== 'semi-sensitive';
  }
  const box = $('hierarchies');
  const qis = columnsWith('quasi-identifying');
  for (const card of [...box.children]) {
    if (!qis.includes(card.dataset.column)) card.remove();
  }
  for (const name of qis) {
    if (![...box.children].some((c) => c.dataset.column === name)) box.append(hierarchyCard(name));
  }
  for (const s of document.querySelectorAll('select.attribute')) fillAttributes(s);
}

function columnIndex(name) { return table.columns.findIndex((c) => c.name === name); }

function hierarchyCard(name) {
  const i = columnIndex(name);
  const column = table.columns[i];
  const key = 'attributes.' + name + '.hierarchy';
  const kind = el('select', { id: 'hkind-' + i, class: 'hkind', 'data-key': key });
  const KIND_NAMES = { file: 'ARX hierarchy file', none: 'none (local recoding only)' };
  for (const k of KINDS) kind.append(el('option', { value: k, text: KIND_NAMES[k] || k }));
  kind.value = column.kind === 'text' ? 'suppress' : 'intervals';
  const widths = el('input', { type: 'text', id: 'hwidths-' + i, value: '5, 10, 20', size: '16' });
  const format = el('input', { type: 'text', id: 'hformat-' + i, value: '%Y-%m-%d', size: '12' });
  const groups = el('textarea', { id: 'hgroups-' + i, rows: '4', cols: '50', placeholder: 'one group per line, "label: value, value"; a line "---" starts the next level' });
  const file = el('input', { type: 'file', id: 'hfile-' + i, accept: '.csv,.txt' });
  const fileName = el('span', { id: 'hfilename-' + i, class: 'hint' });
  const params = {
    intervals: el('label', {}, 'widths of each level ', widths),
    date: el('label', {}, 'format of the values ', format),
    groups: el('label', {}, 'groups ', groups),
    file: el('span', {}, el('label', {}, 'file (value;level 1;level 2;…) ', file), fileName),
  };
  const card = el('div', { class: 'card', id: 'hier-' + i, 'data-column': name },
    el('h3', { text: name }),
    el('div', { class: 'row' }, el('label', {}, 'Kind ', kind), el('span', { class: 'error', 'data-for': key }),
      ...Object.values(params)),
    el('p', { class: 'warning', id: 'uncovered-' + i, hidden: '' }),
    el('div', { class: 'scroll preview' }, el('table', { id: 'preview-' + i, class: 'grid' })));
  const show = () => { for (const [k, p] of Object.entries(params)) p.hidden = k !== kind.value; };
  show();
  let timer = null;
  const changed = () => {
    show();
    if (timer === null) previewing(1); else clearTimeout(timer);
    timer = setTimeout(() => { timer = null; previewed(name); }, 250);
  };
  kind.addEventListener('change', changed);
  for (const f of [widths, format, groups]) f.addEventListener('input', changed);
  file.addEventListener('change', async () => {
    const f = file.files[0];
    if (!f) return;
    // the upload counts as a pending preview until it has asked for its own
    previewing(1);
    try {
      const data = await call('POST', '/api/upload?kind=hierarchy&name=' + encodeURIComponent(f.name), undefined, f);
      if (data.error) { showErrors([data.error]); return; }
      fileName.textContent = data.name;
      fileName.dataset.name = data.name;
      changed();
    } finally {
      previewing(-1);
    }
  });
  previewing(1);
  setTimeout(() => previewed(name), 0);
  return card;
}

function number(text) {
  const t = String(text).trim();
  return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t) ? Number(t) : t;
}

function hierarchyOf(name) {
  const i = columnIndex(name);
  const kind = $('hkind-' + i).value;
  switch (kind) {
    case 'intervals':
      return { kind, widths: $('hwidths-' + i).value.split(',').map((s) => s.trim()).filter((s) => s).map(number) };
    case 'mask': case 'suppress':
      return { kind };
    case 'date':
      return { kind, format: $('hformat-' + i).value };
    case 'groups': {
      const levels = [{}];
      for (const line of $('hgroups-' + i).value.split('\n')) {
        const l = line.trim();
        if (!l) continue;
        if (l === '---') { levels.push({}); continue; }
        const [label, members] = l.includes(':') ? [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)] : [l, ''];
        levels[levels.length - 1][label.trim()] = members.split(',').map((s) => s.trim()).filter((s) => s);
      }
      return { kind, levels: levels.filter((g) => Object.keys(g).length) };
    }
    case 'file':
      return $('hfilename-' + i).dataset.name || '';
    case 'none':
      return null;
  }
  return null;
}

// previews asked for and not yet shown, on the page as `data-previews` of the body: a
// preview moves what follows it, so the browser tests wait for none before they click
let previews = 0;
function previewing(n) {
  previews += n;
  document.body.dataset.previews = String(previews);
}

async function previewed(name) {
  try { await preview(name); } finally { previewing(-1); }
}

async function preview(name) {
  const i = columnIndex(name);
  if (!$('hier-' + i)) return;
  // the column's own keys alone: an error elsewhere in the job does not hide this preview
  const attributes = Object.create(null);
  attributes[name] = job().attributes[name];
  const only = { attributes };
  const data = await call('POST', '/api/preview', { job: only, column: name });
  const key = 'attributes.' + name + '.hierarchy';
  const place = document.querySelector(`#hier-${i} .error`);
  const grid = $('preview-' + i);
  const warn = $('uncovered-' + i);
  grid.replaceChildren();
  warn.hidden = true;
  if (data.error) {
    // an error of this hierarchy is shown at it; others wait for Check
    if (data.error.key && (data.error.key === key || data.error.key.startsWith(key + '.'))) {
      place.textContent = data.error.message;
    } else {
      place.textContent = '';
    }
    return;
  }
  place.textContent = '';
  const head = el('tr', {}, el('th', { text: 'value' }), el('th', { text: 'rows' }));
  for (let l = 1; l < data.levels; l++) head.append(el('th', { text: 'level ' + l }));
  grid.append(head);
  for (const r of data.rows) {
    const tr = el('tr', {}, el('td', { text: r.value }), el('td', { text: String(r.rows) }));
    for (let l = 1; l < data.levels; l++) {
      const label = r.labels[l];
      tr.append(el('td', label === null ? { class: 'missing', text: 'not covered' } : { text: label }));
    }
    grid.append(tr);
  }
  if (data.rows.length < data.values) grid.append(el('tr', {}, el('td', { colspan: String(data.levels + 1), class: 'hint', text: `… and ${data.values - data.rows.length} more values` })));
  if (data.uncovered_count > 0) {
    warn.textContent = `${data.uncovered_count} value(s) of the column are not in this hierarchy: ${data.uncovered.join(', ')}${data.uncovered_count > data.uncovered.length ? ', …' : ''}. The job cannot run until every value is covered (or marked missing).`;
    warn.hidden = false;
  }
}

// ---- models ------------------------------------------------------------------------------

function fillAttributes(select) {
  const keep = select.value;
  select.replaceChildren();
  for (const c of columnsWith('sensitive')) select.append(el('option', { value: c, text: c }));
  if (keep) select.value = keep;
}

function addModel(model) {
  const box = $('models');
  const row = el('div', { class: 'model row' });
  const kind = el('select', { class: 'model-kind' });
  for (const m of Object.keys(MODELS)) kind.append(el('option', { value: m, text: m }));
  kind.value = model;
  const params = el('span', { class: 'params' });
  const remove = el('button', { type: 'button', class: 'remove', text: 'remove' });
  const draw = () => {
    params.replaceChildren();
    for (const [p, value] of MODELS[kind.value]) {
      let field;
      if (p === 'attribute') { field = el('select', { class: 'param attribute', 'data-param': p }); fillAttributes(field); }
      else if (p === 'distance') {
        field = el('select', { class: 'param', 'data-param': p });
        for (const d of ['equal', 'ordered', 'hierarchical']) field.append(el('option', { value: d, text: d }));
      } else field = el('input', { type: 'text', class: 'param', 'data-param': p, value, size: '6' });
      params.append(el('label', {}, p + ' ', field), el('span', { class: 'error param-error', 'data-param': p }));
    }
    renumber();
  };
  kind.addEventListener('change', draw);
  remove.addEventListener('click', () => { row.remove(); renumber(); });
  row.append(el('label', {}, 'Model ', kind), el('span', { class: 'error model-error' }), params, remove);
  box.append(row);
  draw();
}

// error places of the models follow their position: privacy[i] and privacy[i].PARAM
function renumber() {
  [...$('models').children].forEach((row, i) => {
    row.querySelector('.model-error').dataset.for = `privacy[${i}]`;
    for (const e of row.querySelectorAll('.param-error')) e.dataset.for = `privacy[${i}].${e.dataset.param}`;
  });
}

// ---- the job -----------------------------------------------------------------------------

function job() {
  const attributes = Object.create(null);
  for (const [name, role] of Object.entries(roles())) {
    const a = { role };
    const h = role === 'quasi-identifying' && $('hier-' + columnIndex(name)) ? hierarchyOf(name) : null;
    if (h !== null) a.hierarchy = h;
    if (role === 'semi-sensitive') a.flag = $('flag-' + columnIndex(name)).value;
    attributes[name] = a;
  }
  const privacy = [...$('models').children].map((row) => {
    const m = { model: row.querySelector('.model-kind').value };
    for (const p of row.querySelectorAll('.param')) {
      m[p.dataset.param] = p.tagName === 'SELECT' ? p.value : number(p.value);
    }
    return m;
  });
  const seed = $('seed').value.trim();
  const keys = {
    suppression_limit: number($('suppression').value),
    attributes,
    privacy,
    metric: { name: $('metric').value },
    search: { algorithm: $('algorithm').value },
  };
  if (seed) keys.output = { seed: number(seed) };
  if ($('algorithm').value === 'pareto') {
    // the front's objectives and budget; a node of it is released under the budget alone
    const preset = $('pareto-objectives').value;
    const sensitive = columnsWith('sensitive')[0] || '';
    keys.pareto = {
      objectives: OBJECTIVES[preset] || [{ property: 'sensitive-count', index: 'min', attribute: sensitive }, { property: 'glm', index: 'sum' }],
      budget_fraction: number($('pareto-budget').value),
      iterations: number($('pareto-iterations').value),
    };
    if (seed) keys.pareto.seed = number(seed);
    delete keys.privacy;
    delete keys.suppression_limit;
    keys.search = {};
    if (chosenNode) keys.search.levels = chosenNode;
  }
  return keys;
}

async function check() {
  const data = await call('POST', '/api/check', { job: job() });
  if (data.error) { showErrors([data.error]); return null; }
  showErrors(data.errors);
  $('check-result').textContent = data.errors.length ? '' : 'The job is ready to run.';
  return data;
}

async function exportJob() {
  const data = await check();
  if (!data || data.errors.length) return;
  $('toml').textContent = data.toml;
  $('toml').hidden = false;
  const a = el('a', { href: URL.createObjectURL(new Blob([data.toml], { type: 'application/toml' })), download: 'job.toml' });
  document.body.append(a);
  a.click();
  a.remove();
}

// ---- running -----------------------------------------------------------------------------

function searchChanged() {
  const pareto = $('algorithm').value === 'pareto';
  $('pareto-fields').hidden = !pareto;
  for (const id of ['models', 'add-model', 'suppression-field']) $(id).hidden = pareto;
  $('local-note').hidden = !['mondrian', 'lgb'].includes($('algorithm').value);
  chosenNode = null;
}

async function releaseNode(levels) {
  chosenNode = levels;
  await run();
}

async function run() {
  clearErrors();
  $('check-result').textContent = '';
  $('step-result').hidden = true;
  const data = await call('POST', '/api/run', { job: job() });
  chosenNode = null;
  if (data.error) { showErrors([data.error]); return; }
  $('run').disabled = true;
  $('cancel').disabled = false;
  $('progress-box').hidden = false;
  $('run-state').textContent = 'Running…';
  $('run-state').dataset.state = 'running';
  clearInterval(polling);
  polling = setInterval(poll, 150);
}

async function poll() {
  const data = await call('GET', '/api/run');
  const r = data.run;
  if (!r) return;
  const p = $('progress');
  if (r.stage.total) { p.max = r.stage.total; p.value = r.stage.done; } else p.removeAttribute('value');
  $('stage').textContent = r.stage.name ? `${r.stage.name}${r.stage.total ? ` ${r.stage.done.toLocaleString('en')} of ${r.stage.total.toLocaleString('en')}` : ''}` : '';
  if (r.state === 'running') return;
  clearInterval(polling);
  $('run').disabled = false;
  $('cancel').disabled = true;
  $('progress-box').hidden = true;
  $('run-state').dataset.state = r.state;
  if (r.state === 'cancelled') $('run-state').textContent = 'Cancelled: nothing was released.';
  else if (r.state === 'failed') { $('run-state').textContent = 'The job failed: nothing was released.'; showErrors([r.error]); }
  else { $('run-state').textContent = 'Done.'; await result(); }
}

async function cancel() { await call('POST', '/api/cancel'); }

function percent(x) { return (100 * x).toFixed(2) + ' %'; }

async function result() {
  const data = await call('GET', '/api/result');
  const r = data.result;
  if (!r) return;
  $('step-result').hidden = false;
  const rep = r.report;
  for (const id of ['download-release', 'download-report', 'download-job']) $(id).hidden = false;
  $('front-box').hidden = !r.front;
  const buckets = $('bucket-files');
  buckets.replaceChildren();
  for (const f of r.files || []) {
    const a = el('a', { href: '/download/file?name=' + encodeURIComponent(f), class: 'bucket', text: 'Download ' + f });
    a.addEventListener('click', download);
    buckets.append(a, ' ');
  }
  if (r.front) { showFront(r.front); return; }
  if (rep.algorithm === 'lgb' && r.found) {
    const f = rep.figures || {};
    const audit = rep.audit && rep.audit.passed ? 'The independent audit of the written tables passed.' : '';
    const groups = f.groups === undefined ? '' : ` ${f.groups} local groups, the smallest of ${f.min_group} rows; normalized NCP ${f.ncp_normalized.toFixed(4)}.`;
    $('summary').textContent = `Released the main table and ${r.files.length} bucket table(s), ${rep.k}-anonymous.${groups} ${audit}`;
    for (const id of ['levels', 'risks', 'sample']) $(id).replaceChildren();
    for (const id of ['classes', 'lattice', 'distributions']) $(id).replaceChildren();
    $('lattice-note').textContent = 'Local recoding has no lattice.';
    return;
  }
  if (!r.found) {
    $('summary').textContent = 'No transformation satisfies the models within the suppression limit: nothing was released. ' + (rep.warnings || []).join(' ');
    $('download-release').hidden = true;
    for (const id of ['levels', 'risks', 'sample']) $(id).replaceChildren();
    for (const id of ['classes', 'lattice', 'distributions']) $(id).replaceChildren();
    $('lattice-note').textContent = '';
    return;
  }
  const audit = rep.audit && rep.audit.passed ? 'The independent audit of the written release passed.' : '';
  $('summary').textContent = `Released ${rep.rows.toLocaleString('en')} rows: ${rep.suppressed_rows.toLocaleString('en')} suppressed (${percent(rep.suppressed_rows / Math.max(rep.rows, 1))}), ${rep.released_classes} classes released, the smallest of ${rep.min_class_size} rows. ${rep.metric} ${rep.score === null ? '' : rep.score.toFixed(6)}. ${audit}`;
  const levels = $('levels');
  levels.replaceChildren(el('tr', {}, el('th', { text: 'quasi-identifier' }), el('th', { text: 'level' })));
  for (const [name, level] of r.levels) levels.append(el('tr', {}, el('td', { text: name }), el('td', { text: String(level) })));
  const risks = $('risks');
  risks.replaceChildren(el('tr', {}, el('th', { text: '' }), el('th', { text: 'original' }), el('th', { text: 'released' })));
  const b = r.risk_before, a = r.risk_after;
  const line = (label, f) => risks.append(el('tr', {}, el('th', { text: label }), el('td', { text: b ? f(b) : '' }), el('td', { text: a ? f(a) : '—' })));
  line('classes', (x) => String(x.classes));
  line('records alone in their class', (x) => percent(x.sample_uniques));
  line('prosecutor risk, highest', (x) => percent(x.prosecutor.highest));
  line('prosecutor risk, average', (x) => percent(x.prosecutor.average));
  line('records at risk above ' + percent(b.threshold), (x) => percent(x.prosecutor.records_at_risk));
  line('journalist risk, highest', (x) => percent(x.journalist.highest));
  line('marketer risk', (x) => percent(x.marketer.average));
  $('classes').innerHTML = r.classes_svg || '';
  if (r.lattice) {
    const l = r.lattice;
    $('lattice-note').textContent = (l.drawn === l.size ? `All ${l.size} transformations` : `The released transformation and the ${l.drawn - 1} nearest of the lattice's ${l.size}`) + `: ${l.acceptable} acceptable (filled), the others hollow; the released one is the large blue node. Hover over a node for its levels.`;
    $('lattice').innerHTML = l.svg;
    // the released node in view
    const o = $('lattice').querySelector('circle.optimum');
    if (o) $('lattice').scrollLeft = Number(o.getAttribute('cx')) - $('lattice').clientWidth / 2;
  } else {
    $('lattice-note').textContent = 'Local recoding has no lattice.';
    $('lattice').replaceChildren();
  }
  const d = $('distributions');
  d.replaceChildren();
  for (const x of r.distributions) {
    const box = el('div', { class: 'distribution' }, el('h4', { text: x.name }));
    box.insertAdjacentHTML('beforeend', x.svg);
    d.append(box);
  }
  const sample = $('sample');
  sample.replaceChildren();
  r.sample.forEach((row, i) => {
    const tr = el('tr');
    for (const cell of row) tr.append(el(i === 0 ? 'th' : 'td', { text: cell }));
    sample.append(tr);
  });
}

function showFront(front) {
  $('summary').textContent = `The front has ${front.nodes.length} node(s).`;
  $('download-release').hidden = true;
  for (const id of ['levels', 'risks', 'sample']) $(id).replaceChildren();
  for (const id of ['classes', 'lattice', 'distributions']) $(id).replaceChildren();
  $('lattice-note').textContent = '';
  $('front').innerHTML = front.svg;
  for (const c of $('front').querySelectorAll('circle[data-node]')) {
    c.addEventListener('click', () => releaseNode(front.nodes[Number(c.dataset.node)].levels));
  }
  const t = $('front-table');
  t.replaceChildren();
  const head = el('tr');
  for (const q of front.quasi_identifiers) head.append(el('th', { text: q }));
  for (const o of front.objectives) head.append(el('th', { text: o }));
  head.append(el('th', { text: 'k' }), el('th', { text: 'suppressed' }), el('th'));
  t.append(head);
  front.nodes.forEach((n, i) => {
    const tr = el('tr');
    for (const l of n.levels) tr.append(el('td', { text: String(l) }));
    for (const v of n.values) tr.append(el('td', { text: String(v) }));
    const b = el('button', { type: 'button', id: 'release-node-' + i, text: 'Release' });
    b.addEventListener('click', () => releaseNode(n.levels));
    const cell = el('td', {}, b);
    if (n.k < 2) cell.append(el('span', { class: 'warning', text: ' k = 1: persons unique in the release can be found' }));
    tr.append(el('td', { text: String(n.k) }), el('td', { text: String(n.suppressed_rows) }), cell);
    t.append(tr);
  });
}

// a download: fetched with the token, then saved under the name the server gives
async function download(event) {
  event.preventDefault();
  const a = event.currentTarget;
  const r = await fetch(a.getAttribute('href'), { headers: { Authorization: 'Bearer ' + TOKEN } });
  if (!r.ok) {
    let message = r.status + ' ' + r.statusText;
    try { message = (await r.json()).error.message; } catch (e) { /* not JSON */ }
    showErrors([{ key: '', message }]);
    return;
  }
  const disposition = r.headers.get('Content-Disposition') || '';
  const name = (disposition.match(/filename="([^"]*)"/) || [])[1] || 'download';
  const save = el('a', { href: URL.createObjectURL(await r.blob()), download: name });
  document.body.append(save);
  save.click();
  save.remove();
}

document.addEventListener('DOMContentLoaded', async () => {
  for (const id of ['download-release', 'download-report', 'download-job']) $(id).addEventListener('click', download);
  $('upload').addEventListener('click', upload);
  $('open').addEventListener('click', openPath);
  $('reload').addEventListener('click', reload);
  $('add-model').addEventListener('click', () => addModel('k-anonymity'));
  $('check').addEventListener('click', check);
  $('run').addEventListener('click', run);
  $('cancel').addEventListener('click', cancel);
  $('export').addEventListener('click', exportJob);
  $('algorithm').addEventListener('change', searchChanged);
  const data = await call('GET', '/api/table');
  if (data.table) loaded(data);
});
