// SPDX-License-Identifier: MIT
// kwarn dashboard.  Plain JavaScript, no library, no build step.
// Everything that comes from the database is put on the page with
// textContent / createTextNode: never innerHTML.
'use strict';

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';

// el('td', {class: 'num'}, 'text', childNode, ...)
function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	setAttrs(e, attrs);
	for (const k of kids) {
		if (k === null || k === undefined)
			continue;
		e.appendChild(typeof k === 'object' ? k :
			document.createTextNode(String(k)));
	}
	return e;
}

function svg(tag, attrs, ...kids) {
	const e = document.createElementNS(SVGNS, tag);
	setAttrs(e, attrs);
	for (const k of kids)
		e.appendChild(typeof k === 'object' ? k :
			document.createTextNode(String(k)));
	return e;
}

function setAttrs(e, attrs) {
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === null || v === undefined || /^on/i.test(k))
			continue;
		e.setAttribute(k, String(v));
	}
}

function link(href, ...kids) {
	return el('a', { href: href }, ...kids);
}

async function api(path) {
	const r = await fetch(path, { headers: { Accept: 'application/json' } });
	let body = null;
	try {
		body = await r.json();
	} catch (e) {
		throw new Error(path + ': ' + r.status + ' ' + r.statusText);
	}
	if (!r.ok)
		throw new Error((body && body.error) || r.statusText);
	return body;
}

const enc = encodeURIComponent;
const short = (sha) => (sha || '').slice(0, 12);
const num = (v) => (v === null || v === undefined ? '–' : String(v));

function show(...nodes) {
	const m = $('main');
	m.replaceChildren(...nodes);
}

function card(title, ...kids) {
	return el('section', { class: 'card' }, title ? el('h2', {}, title) : null,
		...kids);
}

function badge(state) {
	return el('span', { class: 'badge ' + state }, state.replace('_', ' '));
}

function verdict(v) {
	if (!v)
		return el('span', { class: 'muted' }, '–');
	return el('span', { class: 'verdict-' + v }, v);
}

// kwarn classify's verdict on a fall-through warning: a badge (red for a
// likely missing break, amber for unsure, grey for a likely intended
// fall-through), the fix it suggests (none when unsure) and why; null
// when the warning was not classified.
function classification(w) {
	if (!w.verdict)
		return null;
	const kind = w.verdict === 'likely missing break' ? 'missing-break' :
		w.verdict === 'unsure' ? 'unsure' : 'intended';
	return el('div', { class: 'classify' },
		el('span', { class: 'classify-badge ' + kind }, w.verdict),
		w.fix ? el('span', { class: 'classify-fix' }, 'fix: ',
			el('code', {}, w.fix)) :
			el('span', { class: 'classify-fix' },
				'no fix suggested: read both cases'),
		w.reason ? el('span', { class: 'classify-reason' }, w.reason) : null);
}

// ---- run selection ----

let runs = [];
let currentRun = null;

async function loadRuns() {
	runs = await api('/api/runs');
	const sel = $('run');
	sel.replaceChildren(...runs.map((r) => el('option', { value: r.id },
		'#' + r.id + ' ' + r.tree.name + ' · ' + r.kind +
		(r.series ? ' · ' + r.series : '') + ' (' + r.commits +
		' commits)')));
	sel.addEventListener('change', () => {
		location.hash = '#/run/' + sel.value;
	});
}

function pickRun(id) {
	if (id)
		currentRun = Number(id);
	if (!currentRun && runs.length)
		currentRun = runs[0].id;
	$('run').value = String(currentRun);
	return currentRun;
}

// ---- burn-down chart ----

function chart(points) {
	const W = 900, H = 320, L = 48, R = 16, T = 14, B = 34;
	const n = points.length;
	const opts = [];
	for (const p of points)
		for (const o of Object.keys(p.by_option || {}))
			if (!opts.includes(o))
				opts.push(o);
	let max = 1;
	for (const p of points)
		max = Math.max(max, p.warnings || 0);
	const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1));
	const y = (v) => T + (H - T - B) * (1 - v / max);
	const g = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart',
		role: 'img', 'aria-label': 'warnings per commit' });
	g.appendChild(svg('line', { x1: L, y1: y(0), x2: W - R, y2: y(0), class: 'axis' }));
	g.appendChild(svg('line', { x1: L, y1: T, x2: L, y2: y(0), class: 'axis' }));
	for (const v of [0, Math.round(max / 2), max]) {
		g.appendChild(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end',
			class: 'tick' }, String(v)));
	}
	const step = Math.max(1, Math.ceil(n / 10));
	for (let i = 0; i < n; i += step)
		g.appendChild(svg('text', { x: x(i), y: H - B + 16, 'text-anchor': 'middle',
			class: 'tick' }, String(points[i].position)));
	const line = (get, cls) => {
		const pts = [];
		points.forEach((p, i) => {
			const v = get(p);
			if (v !== null && v !== undefined)
				pts.push(x(i).toFixed(1) + ',' + y(v).toFixed(1));
		});
		g.appendChild(svg('polyline', { points: pts.join(' '), class: 'series ' + cls }));
	};
	// per option (only worth drawing when there is more than one)
	if (opts.length > 1)
		opts.forEach((o, k) => line((p) => (p.warnings === null ? null :
			(p.by_option[o] || 0)), 'c' + ((k + 1) % 5)));
	line((p) => p.warnings, 'c0');
	const tip = el('div', { class: 'tip hidden' });
	const wrap = el('div', { class: 'chart-wrap' }, g, tip);
	points.forEach((p, i) => {
		if (p.warnings === null)
			return;
		const text = '#' + p.position + ' ' + (p.subject || short(p.commit)) +
			'\nwarnings ' + p.warnings + ', new ' + p.new + ', fixed ' +
			p.fixed + ', not built ' + p.not_built +
			Object.entries(p.by_option || {}).map(([o, c]) =>
				'\n' + o + ' ' + c).join('');
		const c = svg('circle', { cx: x(i).toFixed(1), cy: y(p.warnings).toFixed(1),
			r: n > 200 ? 2.5 : 4, class: 'point' + (p.new ? ' has-new' : ''),
			'data-position': p.position }, svg('title', {}, text));
		c.addEventListener('mouseenter', () => {
			tip.textContent = text;
			tip.classList.remove('hidden');
			const box = g.getBoundingClientRect();
			const px = x(i) / W * box.width, py = y(p.warnings) / H * box.height;
			tip.style.left = Math.min(px + 10, box.width - 200) + 'px';
			tip.style.top = Math.max(py - 60, 0) + 'px';
		});
		c.addEventListener('mouseleave', () => tip.classList.add('hidden'));
		c.addEventListener('click', () => {
			location.hash = '#/commit/' + p.id;
		});
		g.appendChild(c);
	});
	const legend = el('div', { class: 'legend' }, el('span', { class: 'c0' }, 'all warnings'));
	if (opts.length > 1)
		opts.forEach((o, k) => legend.appendChild(el('span',
			{ class: 'c' + ((k + 1) % 5) }, o)));
	return el('div', {}, wrap, legend);
}

function commitTable(points) {
	const head = el('tr', {}, el('th', { class: 'num' }, '#'),
		el('th', { class: 'sha' }, 'commit'), el('th', {}, 'subject'),
		el('th', { class: 'num' }, 'warnings'), el('th', { class: 'num' }, 'new'),
		el('th', { class: 'num' }, 'fixed'), el('th', { class: 'num' }, 'not built'),
		el('th', {}, 'boot'));
	const rows = points.map((p) => {
		const tr = el('tr', { class: 'commit-row' + (p.new ? ' has-new' : '') },
			el('td', { class: 'num' }, p.position),
			el('td', { class: 'sha mono' }, short(p.commit)),
			el('td', {}, p.subject || p.patch || ''),
			el('td', { class: 'num' }, num(p.warnings)),
			el('td', { class: 'num new' }, num(p.new)),
			el('td', { class: 'num fixed' }, num(p.fixed)),
			el('td', { class: 'num nb' }, num(p.not_built)),
			el('td', {}, p.build && p.boot ?
				link('#/boot/' + p.build, verdict(p.boot)) : verdict(p.boot)));
		tr.addEventListener('click', (ev) => {
			if (ev.target.closest('a'))
				return;
			location.hash = '#/commit/' + p.id;
		});
		return tr;
	});
	return el('div', { class: 'scroll' },
		el('table', { id: 'commits' }, el('thead', {}, head), el('tbody', {}, ...rows)));
}

function warningItem(w, extra) {
	return el('div', { class: 'new-warning' },
		el('div', {}, badge(w.state || 'new'), ' ',
			link('#/warning/' + enc(w.identity) + '/' + enc(extra.commit),
				w.message)),
		el('div', { class: 'where mono' },
			w.file + ':' + w.line + ':' + w.column +
			(w.function ? ' in ' + w.function + '()' : '') +
			(w.option ? ' [' + w.option + ']' : '')),
		classification(w),
		extra.subject ? el('div', { class: 'where' },
			'introduced by #' + extra.position + ' ' + extra.subject) : null);
}

async function newPanel(points) {
	const panel = el('section', { class: 'card new-panel', id: 'new-warnings' },
		el('h2', {}, 'New warnings'));
	const withNew = points.filter((p) => p.new).reverse().slice(0, 20);
	if (!withNew.length) {
		panel.appendChild(el('p', { class: 'muted' }, 'No commit of this run adds a warning.'));
		return panel;
	}
	const lists = await Promise.all(withNew.map((p) =>
		api('/api/commits/' + p.id + '/warnings?state=new&limit=50')
			.catch(() => ({ warnings: [] }))));
	withNew.forEach((p, i) => {
		for (const w of lists[i].warnings)
			panel.appendChild(warningItem(w, { commit: p.commit,
				position: p.position, subject: p.subject || short(p.commit) }));
	});
	return panel;
}

async function viewRun(id) {
	const run = pickRun(id);
	if (!run) {
		show(card('No runs yet', el('p', {}, 'Run `kwarn run` or `kwarn ingest` first.')));
		return;
	}
	const points = await api('/api/runs/' + run + '/burndown');
	const built = points.filter((p) => p.warnings !== null);
	const first = built[0], last = built[built.length - 1];
	const sum = (k) => built.reduce((a, p) => a + (p[k] || 0), 0);
	const summary = el('div', { class: 'summary' },
		el('span', {}, el('b', {}, num(first && first.warnings)), ' at the base'),
		el('span', {}, el('b', {}, num(last && last.warnings)), ' now'),
		el('span', {}, el('b', {}, sum('fixed')), ' fixed'),
		el('span', {}, el('b', {}, sum('new')), ' new'),
		el('span', {}, el('b', {}, points.length), ' commits'));
	const left = el('div', {},
		card('Burn-down of run #' + run, summary, chart(points)),
		card('Commits', commitTable(points)));
	const right = el('div', {}, await newPanel(points));
	show(el('div', { class: 'grid' }, left, right));
}

// ---- warnings at a commit ----

function warningTable(list, commit) {
	const rows = list.map((w) => el('tr', {},
		el('td', {}, badge(w.state)),
		el('td', { class: 'mono' }, w.file + ':' + w.line + ':' + w.column),
		el('td', { class: 'mono' }, w.function || ''),
		el('td', {}, link('#/warning/' + enc(w.identity) + '/' + enc(commit), w.message)),
		el('td', { class: 'opt mono' }, w.option || ''),
		el('td', { class: 'num' }, w.seen)));
	return el('div', { class: 'scroll' }, el('table', {},
		el('thead', {}, el('tr', {}, el('th', {}, 'state'), el('th', {}, 'where'),
			el('th', {}, 'function'), el('th', {}, 'message'),
			el('th', { class: 'opt' }, 'option'), el('th', { class: 'num' }, 'seen'))),
		el('tbody', {}, ...rows)));
}

function pager(res, hrefOf) {
	const p = el('div', { class: 'pager' });
	if (res.offset > 0)
		p.appendChild(link(hrefOf(Math.max(0, res.offset - res.limit)), '← previous'));
	p.appendChild(el('span', { class: 'muted' }, (res.total ? res.offset + 1 : 0) + '–' +
		(res.offset + res.warnings.length) + ' of ' + res.total));
	if (res.offset + res.warnings.length < res.total)
		p.appendChild(link(hrefOf(res.offset + res.limit), 'next →'));
	return p;
}

async function viewCommit(id, q) {
	const state = q.get('state') || '';
	const offset = Number(q.get('offset') || 0);
	const res = await api('/api/commits/' + enc(id) + '/warnings?limit=100&offset=' +
		offset + (state ? '&state=' + enc(state) : ''));
	pickRun(res.commit.run);
	const filters = el('div', { class: 'filters' },
		...[['', 'at this commit'], ['new', 'new'], ['fixed', 'fixed'],
			['not_built', 'not built']].map(([s, label]) =>
			s === state ? el('b', {}, label) :
				link('#/commit/' + enc(id) + (s ? '?state=' + s : ''), label)));
	show(card('Warnings of commit ' + short(res.commit.sha) + ' (#' +
		res.commit.position + ')', filters, warningTable(res.warnings, res.commit.sha),
		pager(res, (o) => '#/commit/' + enc(id) + '?offset=' + o +
			(state ? '&state=' + state : ''))));
}

// ---- one warning with its source ----

async function viewWarning(identity, commit) {
	const s = await api('/api/warnings/' + enc(identity) + '/source' +
		(commit ? '?commit=' + enc(commit) : ''));
	pickRun(s.commit.run);
	const pre = el('pre', { class: 'source' });
	for (const l of s.lines)
		pre.appendChild(el('span', { class: 'row' + (l.line === s.line ? ' hit' : l.mark ? ' note' : '') },
			el('span', { class: 'ln' }, l.line), l.text));
	const notes = el('ul', {}, ...s.notes.map((n) => el('li', { class: 'mono' },
		n.file + ':' + n.line + ':' + n.column + ': note: ' + n.message,
		n.source ? el('pre', {}, n.source) : null)));
	const repro = s.reproducer || '(no object known)';
	show(card(null,
		el('h2', {}, s.message),
		el('p', { class: 'mono' }, s.file + ':' + s.line + ':' + s.column +
			(s.function ? ' in ' + s.function + '()' : '') +
			(s.option ? ' [' + s.option + ']' : '')),
		classification(s),
		el('p', { class: 'muted' }, 'at commit ' + short(s.commit.sha) + ' (#' +
			s.commit.position + '), source from ' +
			(s.from === 'db' ? 'the stored diagnostic (the tree is not cached)' : 'the tree at this commit')),
		pre,
		el('h2', {}, 'Notes'), s.notes.length ? notes : el('p', { class: 'muted' }, 'none'),
		el('h2', {}, 'Reproduce'), el('pre', { class: 'repro mono' }, repro)));
}

// ---- boots ----

async function viewBoot(build) {
	const b = await api('/api/builds/' + enc(build) + '/boot');
	const m = b.modules;
	const mods = m ? card('Modules: ' + m.ok + ' loaded, ' + m.failed + ' failed',
		el('div', { class: 'scroll' }, el('table', { id: 'boot-modules' },
			el('thead', {}, el('tr', {}, el('th', {}, 'module'), el('th', {}, 'status'),
				el('th', {}, 'message'))),
			el('tbody', {}, ...m.list.map((x) => el('tr',
				{ class: x.status === 'ok' ? '' : 'new' }, el('td', {}, x.name),
				el('td', {}, x.status), el('td', {}, x.message || ''))))))) : null;
	show(card('Boot of build ' + build, el('p', {}, 'verdict ', verdict(b.verdict),
		b.reason ? ' · ' + b.reason : '', b.duration_ms !== null ?
			' · ' + (b.duration_ms / 1000).toFixed(1) + ' s' : ''),
	el('pre', { class: 'source' }, b.log || '(no log)')), ...(mods ? [mods] : []));
}

// ---- subsystems ----

async function viewSubsystems() {
	const run = pickRun();
	const res = await api('/api/subsystems?run=' + run);
	if (!res.maintainers) {
		show(card('Subsystems', el('p', { class: 'muted' },
			'The tree of this run has no MAINTAINERS file stored.')));
		return;
	}
	const rows = res.subsystems.sort((a, b) => b.warnings - a.warnings).map((s) =>
		el('tr', {}, el('td', {}, link('#/subsystem/' + run + '/' + enc(s.name), s.name)),
			el('td', { class: 'num' }, s.warnings), el('td', { class: 'num new' }, s.new),
			el('td', { class: 'num' }, s.files)));
	show(card('Warnings per MAINTAINERS entry at commit ' + short(res.commit.sha) +
		' (#' + res.commit.position + ')', el('div', { class: 'scroll' }, el('table', {},
		el('thead', {}, el('tr', {}, el('th', {}, 'entry'), el('th', { class: 'num' }, 'warnings'),
			el('th', { class: 'num' }, 'new'), el('th', { class: 'num' }, 'files'))),
		el('tbody', {}, ...rows)))));
}

async function viewSubsystem(run, name, q) {
	pickRun(run);
	const offset = Number(q.get('offset') || 0);
	const res = await api('/api/subsystems/' + enc(name) + '/warnings?run=' + run +
		'&limit=100&offset=' + offset);
	show(card(name + ': warnings at commit ' + short(res.commit.sha),
		warningTable(res.warnings, res.commit.sha),
		pager(res, (o) => '#/subsystem/' + run + '/' + enc(name) + '?offset=' + o)));
}

// ---- trees ----

async function viewTrees() {
	const trees = await api('/api/trees');
	const sections = trees.map((t) => card(t.name + (t.version ? ' ' + t.version : '') +
		' (' + t.kind + ')', el('div', { class: 'scroll' }, el('table', {},
		el('thead', {}, el('tr', {}, el('th', {}, 'run'), el('th', {}, 'kind'),
			el('th', {}, 'status'), el('th', { class: 'num' }, 'commits'),
			el('th', { class: 'num' }, 'warnings now'), el('th', {}, 'compiler'),
			el('th', {}, 'started'))),
		el('tbody', {}, ...t.runs.map((r) => el('tr', {},
			el('td', {}, link('#/run/' + r.id, '#' + r.id)), el('td', {}, r.kind),
			el('td', {}, r.status), el('td', { class: 'num' }, r.commits),
			el('td', { class: 'num' }, num(r.warnings)),
			el('td', {}, r.compiler || '-'),
			el('td', {}, new Date(r.started_at * 1000).toISOString().slice(0, 16)
				.replace('T', ' ')))))))));
	show(...(sections.length ? sections : [card('Trees', el('p', { class: 'muted' },
		'No tree imported yet.'))]));
}

// ---- router ----

async function route() {
	const h = location.hash.replace(/^#\/?/, '');
	const [path, qs] = h.split('?');
	const q = new URLSearchParams(qs || '');
	const part = path.split('/').map(decodeURIComponent);
	for (const a of document.querySelectorAll('header nav a'))
		a.classList.remove('active');
	const nav = { '': 'burndown', run: 'burndown', subsystems: 'subsystems',
		subsystem: 'subsystems', trees: 'trees' }[part[0]];
	if (nav)
		$('nav-' + nav).classList.add('active');
	try {
		switch (part[0]) {
		case 'commit': await viewCommit(part[1], q); break;
		case 'warning': await viewWarning(part[1], part[2]); break;
		case 'boot': await viewBoot(part[1]); break;
		case 'subsystems': await viewSubsystems(); break;
		case 'subsystem': await viewSubsystem(part[1], part.slice(2).join('/'), q); break;
		case 'trees': await viewTrees(); break;
		case 'run': await viewRun(part[1]); break;
		default: await viewRun(null);
		}
	} catch (e) {
		show(card('Error', el('p', { class: 'error' }, String(e.message || e))));
	}
	document.body.setAttribute('data-ready', '1');
}

async function start() {
	try {
		await loadRuns();
	} catch (e) {
		show(card('Error', el('p', { class: 'error' }, String(e.message || e))));
		document.body.setAttribute('data-ready', '1');
		return;
	}
	window.addEventListener('hashchange', route);
	await route();
}

start();
