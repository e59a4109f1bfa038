// SPDX-License-Identifier: MIT
// kwarn dashboard.  Plain JavaScript, no library, no build step (the
// chart's reasons are at "the chart" below).
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

// Requests made by the view being drawn (bench/dashboard reads it).
let requests = 0;

async function api(path) {
	requests++;
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
// A commit's page: its position in run RUN, and more of the query (QS)
const commitHref = (run, pos, qs) => '#/commit/' + pos + '?run=' + run +
	(qs ? '&' + qs : '');

function show(...nodes) {
	const m = $('main');
	m.replaceChildren(...nodes);
}

function card(title, ...kids) {
	return el('section', { class: 'card' }, title ? el('h2', {}, title) : null,
		...kids);
}

// A count in a table: coloured as KIND (new, fixed, nb) says only when it
// is not zero; a zero (and a point not built) is muted, as it means nothing.
function countTd(kind, v, text) {
	return el('td', { class: 'num ' + (v ? kind : 'zero') }, text === undefined ? num(v) : text);
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

// kwarn classify's verdicts as verdict= of the API names them, and the
// verdict each stands for ("none": a warning it did not classify).
const VERDICTS = [['missing-break', 'likely missing break'], ['intended', 'likely intended'],
	['unsure', 'unsure'], ['none', 'not classified']];

// A warning's verdict in a list: a small badge, nothing when none.
function verdictBadge(w) {
	if (!w.verdict)
		return null;
	const kind = w.verdict === 'likely missing break' ? 'missing-break' :
		w.verdict === 'unsure' ? 'unsure' : 'intended';
	return el('span', { class: 'classify-badge ' + kind, 'data-verdict': kind,
		title: (w.fix ? 'fix: ' + w.fix + '. ' : '') + (w.reason || '') }, w.verdict);
}

// Links keeping a list's warnings of one verdict (verdict= of the API),
// CUR the one shown; HREFOF(verdict or '') is a link's address.
function verdictFilter(cur, hrefOf) {
	return el('div', { class: 'filters verdict-filter', role: 'group',
		'aria-label': 'verdict' }, el('span', { class: 'muted' }, 'verdict:'),
	...[['', 'any']].concat(VERDICTS).map(([v, label]) =>
		v === (cur || '') ? el('b', {}, label) :
			el('a', { href: hrefOf(v), 'data-verdict': v || 'any' }, label)));
}

// What people decided about a warning (kwarn triage): the states in the
// order of triage_states[] in lib/triage.c (tests/41-dashboard.t holds
// this list to the burn-down's by_triage), "open" being never triaged
// or reopened.
const TRIAGE = ['open', 'confirmed', 'intended', 'false-positive', 'compiler-bug',
	'wontfix'];

const triageDay = (t) => new Date(t * 1000).toISOString().slice(0, 10);

// A triage's link, a link only when it is http(s): the database is not
// trusted to hold only what kwarn triage lets in.
function triageLink(url) {
	return /^https?:\/\//i.test(url) ? el('a', { href: url, class: 'triage-link',
		rel: 'noopener noreferrer' }, url) : el('span', { class: 'triage-link' }, url);
}

// A warning's triage T as a badge, the decision in its title; null when
// nobody decided anything about it.
function triageBadge(t) {
	if (!t || !t.who)
		return null;
	return el('span', { class: 'triage-badge ' + t.state, 'data-triage': t.state,
		title: t.state + ' by ' + t.who + ' on ' + triageDay(t.at) + ': ' + t.reason +
			(t.link ? ' ' + t.link : '') }, t.state.replace('-', ' '));
}

// The whole of a warning's triage T, for the warning page.
function triageDetail(t) {
	if (!t || !t.who)
		return el('p', { class: 'triage muted' },
			'triage: open, nobody has decided about this warning yet');
	return el('p', { class: 'triage' }, 'triage: ', triageBadge(t), ' by ',
		el('b', { class: 'triage-who' }, t.who), ' on ', triageDay(t.at), ': ',
		el('span', { class: 'triage-reason' }, t.reason),
		t.link ? ' ' : null, t.link ? triageLink(t.link) : null);
}

// The server takes triage (kwarn-server --triage-tokens, as /api/health
// says): only then does the warning page get its triage control.
let triageWritable = false;
// The token is typed once per tab and kept in the tab's session storage
// (gone with the tab), and sent only in the Authorization header of the
// POST: never in a URL, never as a cookie.  Kept only once the server has
// taken it (a 201); a 401 forgets it.
const TOKEN_KEY = 'kwarn-triage-token';

function storedToken() {
	try {
		return sessionStorage.getItem(TOKEN_KEY) || '';
	} catch (e) {
		return '';
	}
}

// The triage control of the warning page: a state, why, a link, and the
// token while the tab has none.  Its inputs have no name, so even a form
// sent without this script puts nothing in a URL.  A decision stored,
// the page is drawn again from the server's answer.
function triageControl(identity, t) {
	const cur = (t && t.state) || 'open';
	const state = el('select', { id: 'triage-state', 'aria-label': 'triage state' },
		...TRIAGE.map((s) => el('option', { value: s, selected: s === cur ? '' : null }, s)));
	state.value = cur;
	const reason = el('input', { id: 'triage-reason', type: 'text', required: '',
		maxlength: 4096, autocomplete: 'off', placeholder: 'why, in words a maintainer can check' });
	const url = el('input', { id: 'triage-link', type: 'url', maxlength: 2048,
		autocomplete: 'off', placeholder: 'https://… (required for compiler-bug)' });
	const token = el('input', { id: 'triage-token', type: 'password', autocomplete: 'off' });
	const tokenLabel = el('label', { id: 'triage-token-label' }, 'token ', token);
	const forget = el('button', { type: 'button', id: 'triage-forget' }, 'forget the token');
	const status = el('p', { id: 'triage-status', class: 'triage-status', role: 'status' });
	const shown = () => {
		const have = !!storedToken();
		tokenLabel.hidden = have;
		token.required = !have;
		forget.hidden = !have;
	};
	const say = (text, bad) => {
		status.textContent = text;
		status.classList.toggle('error', !!bad);
	};
	forget.addEventListener('click', () => {
		sessionStorage.removeItem(TOKEN_KEY);
		shown();
		say('the token is forgotten in this tab');
	});
	const form = el('form', { class: 'triage-form', 'aria-label': 'triage this warning' },
		el('label', {}, 'triage as ', state), ' ',
		el('label', { class: 'triage-why' }, 'because ', reason), ' ',
		el('label', { class: 'triage-url' }, 'link ', url), ' ',
		tokenLabel, ' ', el('button', { type: 'submit' }, 'record'), ' ', forget, status);
	shown();
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		const tok = storedToken() || token.value.trim();
		const body = { state: state.value, reason: reason.value };
		if (url.value.trim())
			body.link = url.value.trim();
		say('recording…');
		let r, res = null;
		try {
			r = await fetch('/api/warnings/' + enc(identity) + '/triage', {
				method: 'POST', credentials: 'omit', cache: 'no-store',
				headers: { 'Content-Type': 'application/json',
					Accept: 'application/json', Authorization: 'Bearer ' + tok },
				body: JSON.stringify(body) });
			res = await r.json().catch(() => null);
		} catch (err) {
			say('not recorded: ' + String(err.message || err), true);
			return;
		}
		if (r.status === 201) {
			sessionStorage.setItem(TOKEN_KEY, tok);
			token.value = '';
			await route();
			return;
		}
		if (r.status === 401) {
			sessionStorage.removeItem(TOKEN_KEY);
			token.value = '';
			shown();
		}
		say('not recorded: ' + ((res && res.error) || r.status + ' ' + r.statusText), true);
	});
	return form;
}

// Links keeping a list's warnings of one triage state (triage= of the
// API), CUR the one shown; HREFOF(state or '') is a link's address.
function triageFilter(cur, hrefOf) {
	return el('div', { class: 'filters triage-filter', role: 'group',
		'aria-label': 'triage' }, el('span', { class: 'muted' }, 'triage:'),
	...[''].concat(TRIAGE).map((s) => {
		const label = s ? s.replace('-', ' ') : 'any';
		return s === (cur || '') ? el('b', {}, label) :
			el('a', { href: hrefOf(s), 'data-triage': s || 'any' }, label);
	}));
}

// ---- run selection ----

let runs = [];
let currentRun = null;

// Which route the runs were last read for: a view that lists runs reads
// them again only when they were read for another (start() has just read
// them for the first).
let routes = 0, runsRead = -1;

async function loadRuns() {
	runs = await api('/api/runs');
	runsRead = routes;
	const sel = $('run');
	sel.replaceChildren(...runs.map((r) => el('option', { value: r.id },
		'#' + r.id + ' ' + r.tree.name + ' · ' + r.kind +
		(r.series ? ' · ' + r.series : '') + ' (' + r.commits +
		' commits)')));
	if (currentRun)
		sel.value = String(currentRun);
}

// The run ID names (else the one picked, at first the newest), and the
// picker on it; a run the picker does not list leaves it where it was,
// the view saying that it does not exist.
function pickRun(id) {
	const want = id ? Number(id) : null;
	if (want && runs.some((r) => r.id === want))
		currentRun = want;
	if (!currentRun && runs.length)
		currentRun = runs[0].id;
	$('run').value = String(currentRun);
	return want || currentRun;
}

// A card saying that run ID is not one of the runs.
function noSuchRun(id) {
	document.title = 'kwarn: no run #' + id;
	show(card('No run #' + id, el('p', { class: 'error', id: 'no-run' },
		'Run #' + id + ' does not exist.'),
	runs.length ? el('p', {}, 'The newest is ', link('#/run/' + runs[0].id,
		'run #' + runs[0].id + ' ' + runs[0].tree.name), '; ',
	link('#/trees', 'every tree and its runs'), '.') : null));
}

// ---- the chart ----
//
// Hand-drawn SVG, kept over a vendored library (uPlot was the candidate):
// a point is an element, so it takes keyboard focus, carries a label for
// screen readers and can be counted by the browser test.  The whole
// reasoning is in doc/dashboard.md.

const SERIES_CLASSES = 6;

// Where each key moves the focus from a point: a series' <g> holds its
// polyline, then its points in commit order (null or the polyline: stay).
const WALK = {
	ArrowLeft: (c) => c.previousElementSibling,
	ArrowRight: (c) => c.nextElementSibling,
	Home: (c) => c.parentNode.querySelector('circle.point'),
	End: (c) => c.parentNode.lastElementChild,
};

// series: [{label, values: [count or null, one per commit]}];
// commits: [{id, position, sha, subject, boot}] in the same order.
function chart(series, commits) {
	const W = 900, H = 320, L = 48, R = 16, T = 22, B = 34;
	const n = commits.length;
	let max = 1;
	for (const s of series)
		for (const v of s.values)
			max = Math.max(max, v || 0);
	const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1));
	const y = (v) => T + (H - T - B) * (1 - v / max);
	const g = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart',
		role: 'group', 'aria-label': 'warnings per commit, one line per compiler and ' +
			'option; the arrow keys, Home and End move along a line' });
	g.appendChild(svg('line', { x1: L, y1: y(0), x2: W - R, y2: y(0), class: 'axis' }));
	g.appendChild(svg('line', { x1: L, y1: T, x2: L, y2: y(0), class: 'axis' }));
	for (const v of [0, Math.round(max / 2), max])
		g.appendChild(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end',
			class: 'tick' }, String(v)));
	const step = Math.max(1, Math.ceil(n / 10));
	for (let i = 0; i < n; i += step)
		g.appendChild(svg('text', { x: x(i), y: H - B + 16, 'text-anchor': 'middle',
			class: 'tick' }, String(commits[i].position)));
	// boots that failed: a red mark across the chart at that commit
	commits.forEach((c, i) => {
		if (!c.boot || c.boot === 'pass')
			return;
		g.appendChild(svg('line', { x1: x(i), y1: T - 8, x2: x(i), y2: y(0),
			class: 'boot-fail', 'data-position': c.position },
		svg('title', {}, '#' + c.position + ': boot ' + c.boot)));
		g.appendChild(svg('text', { x: x(i), y: T - 10, 'text-anchor':
			x(i) > W - 160 ? 'end' : x(i) < L + 80 ? 'start' : 'middle',
		class: 'boot-fail-mark' }, '✕ ' + c.boot));
	});
	const tip = el('div', { class: 'tip hidden', role: 'status' });
	const wrap = el('div', { class: 'chart-wrap' }, g, tip);
	const tipText = (i) => '#' + commits[i].position + ' ' + short(commits[i].sha) +
		' ' + (commits[i].subject || '') +
		(commits[i].boot ? '\nboot: ' + commits[i].boot : '') +
		(commits[i].new || commits[i].fixed ? '\n+' + num(commits[i].new) +
			' new, −' + num(commits[i].fixed) + ' fixed' : '') +
		series.map((s) => '\n' + s.label + ': ' + num(s.values[i])).join('');
	const showTip = (i, v) => {
		tip.textContent = tipText(i);
		tip.classList.remove('hidden');
		const box = g.getBoundingClientRect();
		const px = x(i) / W * box.width, py = y(v) / H * box.height;
		tip.style.left = Math.max(0, Math.min(px + 10, box.width - 220)) + 'px';
		tip.style.top = Math.max(py - 70, 0) + 'px';
	};
	const hideTip = () => tip.classList.add('hidden');
	const groups = series.map((s, k) => {
		const cls = 'c' + (k % SERIES_CLASSES);
		const sg = svg('g', { class: 'series-group ' + cls, 'data-series': s.label });
		const pts = [];
		s.values.forEach((v, i) => {
			if (v !== null && v !== undefined)
				pts.push(x(i).toFixed(1) + ',' + y(v).toFixed(1));
		});
		sg.appendChild(svg('polyline', { points: pts.join(' '), class: 'series ' + cls }));
		const r = String(n > 200 ? 2.5 : 4), pcls = 'point ' + cls;
		// made directly, as countCell: a 1,000-commit run has thousands
		s.values.forEach((v, i) => {
			if (v === null || v === undefined)
				return;
			const c = document.createElementNS(SVGNS, 'circle');
			const pos = String(commits[i].position);
			c.setAttribute('cx', x(i).toFixed(1));
			c.setAttribute('cy', y(v).toFixed(1));
			c.setAttribute('r', r);
			// a commit that adds a warning stands out
			c.setAttribute('class', commits[i].new ? pcls + ' has-new' : pcls);
			c.setAttribute('tabindex', '-1');
			c.setAttribute('data-position', pos);
			c.setAttribute('data-series', s.label);
			c.setAttribute('data-count', String(v));
			c.setAttribute('aria-label', s.label + ' at #' + pos + ': ' + v);
			c.kwAt = i;
			c.kwValue = v;
			sg.appendChild(c);
			sg.kwStop = c;
		});
		// the series' one stop in the tab order, at first its tip: a
		// 1,000-commit chart is not 1,000 tabs, and still has keyboard access
		if (sg.kwStop)
			sg.kwStop.setAttribute('tabindex', '0');
		g.appendChild(sg);
		return sg;
	});
	// one listener per event for all the points (a 1,000-commit chart
	// has thousands): hover and keyboard focus open the tip, click or
	// Enter go to the commit
	const pointOf = (ev) => ev.target.closest && ev.target.closest('circle.point');
	const enter = (ev) => {
		const c = pointOf(ev);
		if (c)
			showTip(c.kwAt, c.kwValue);
	};
	const leave = (ev) => {
		if (pointOf(ev))
			hideTip();
	};
	const go = (ev) => {
		const c = pointOf(ev);
		if (c && (ev.type === 'click' || ev.key === 'Enter'))
			location.hash = commitHref(commits[c.kwAt].run, commits[c.kwAt].position);
	};
	// a roving tabindex: the point that has the focus becomes its series'
	// tab stop, so Tab comes back to it
	const rove = (ev) => {
		const c = pointOf(ev), sg = c && c.parentNode;
		if (!c || sg.kwStop === c)
			return;
		sg.kwStop.setAttribute('tabindex', '-1');
		c.setAttribute('tabindex', '0');
		sg.kwStop = c;
	};
	// the arrow keys, Home and End move along the focused point's series
	const walk = (ev) => {
		const c = pointOf(ev);
		const to = c && WALK[ev.key] && WALK[ev.key](c);
		if (!to || !to.matches('circle.point'))
			return;
		ev.preventDefault();
		to.focus();
	};
	g.addEventListener('mouseover', enter);
	g.addEventListener('focusin', rove);
	g.addEventListener('focusin', enter);
	g.addEventListener('mouseout', leave);
	g.addEventListener('focusout', leave);
	g.addEventListener('click', go);
	g.addEventListener('keydown', go);
	g.addEventListener('keydown', walk);
	const legend = el('div', { class: 'legend' });
	series.forEach((s, k) => {
		const b = el('button', { type: 'button', class: 'c' + (k % SERIES_CLASSES),
			'aria-pressed': 'true', title: 'show or hide ' + s.label }, s.label);
		b.addEventListener('click', () => {
			const on = b.getAttribute('aria-pressed') !== 'true';
			b.setAttribute('aria-pressed', String(on));
			groups[k].classList.toggle('hidden', !on);
		});
		legend.appendChild(b);
	});
	if (commits.some((c) => c.boot && c.boot !== 'pass'))
		legend.appendChild(el('span', { class: 'boot-key' }, '✕ boot failed'));
	return el('div', {}, wrap, legend);
}

// The counts of burn-down point P by tool, then option: its
// by_tool_option, or (a server before tools were told apart) its
// by_option as the compiler's.
function toolOptions(p) {
	return p.by_tool_option || { compiler: p.by_option || {} };
}

// One series per (compiler, architecture, tool, option) of the runs of a
// group, aligned on the first run's commits by position; a run for
// another architecture than x86_64 is "gcc/arm64", as the burn-down's
// by_compiler names it.  The compiler's series are "gcc -Wfoo"; another
// tool's are named by the tool ("kernel-doc", "sparse"), with the
// compiler of its run when the group has several.
function groupSeries(group, bds, archs) {
	const base = bds[0];
	const at = new Map(base.map((p, i) => [p.position, i]));
	const series = [];
	group.forEach((r, k) => {
		const keys = [];
		for (const p of bds[k]) {
			const bto = toolOptions(p);
			for (const t of Object.keys(bto))
				for (const o of Object.keys(bto[t]))
					if (!keys.some(([kt, ko]) => kt === t && ko === o))
						keys.push([t, o]);
		}
		const arch = archs[k] && archs[k] !== 'x86_64' ? '/' + archs[k] : '';
		const cc = (r.cc || r.compiler || 'gcc').split(' ')[0] + arch;
		for (const [t, o] of keys) {
			const values = base.map(() => null);
			for (const p of bds[k]) {
				const i = at.get(p.position);
				if (i !== undefined && p.warnings !== null)
					values[i] = (toolOptions(p)[t] || {})[o] || 0;
			}
			const label = t === 'compiler' ? cc + ' ' + o :
				t + (o === t ? '' : ' ' + o) +
				(group.length > 1 ? ' (' + cc + ')' : '');
			series.push({ label: label, values: values });
		}
	});
	if (!series.length)
		series.push({ label: 'warnings', values: base.map((p) => p.warnings) });
	return series;
}

// A run's commits a page at a time: the chart above shows them all.
const COMMIT_PAGE = 50;

// POINTS from OFFSET as the table of the burn-down page; HREFOF(offset)
// is the address of another page.
function commitTable(points, offset, hrefOf, at, run) {
	const head = el('tr', {}, el('th', { class: 'num' }, '#'),
		el('th', { class: 'sha' }, 'commit'), el('th', {}, 'subject'),
		el('th', { class: 'num' }, 'warnings'), el('th', { class: 'num' }, 'new'),
		el('th', { class: 'num' }, 'fixed'), el('th', { class: 'num' }, 'not built'),
		el('th', {}, 'boot'));
	const page = points.slice(offset, offset + COMMIT_PAGE);
	const rows = page.map((p) => {
		const tr = el('tr', { class: 'commit-row' + (p.new ? ' has-new' : '') +
			(String(p.position) === at ? ' at' : '') },
			el('td', { class: 'num' }, p.position),
			// a real link: Tab reaches it, a middle click opens a tab
			el('td', { class: 'sha mono' }, link(commitHref(run, p.position),
				short(p.commit.sha))),
			el('td', {}, p.subject || p.patch || ''),
			el('td', { class: 'num' }, num(p.warnings)),
			countTd('new', p.new), countTd('fixed', p.fixed), countTd('nb', p.not_built),
			el('td', {}, p.build && p.boot ?
				link('#/boot/' + p.build, verdict(p.boot)) : verdict(p.boot)));
		tr.addEventListener('click', (ev) => {
			if (ev.target.closest('a'))
				return;
			location.hash = commitHref(run, p.position);
		});
		return tr;
	});
	const table = el('div', { class: 'scroll' },
		el('table', { id: 'commits' }, el('thead', {}, head), el('tbody', {}, ...rows)));
	if (points.length <= COMMIT_PAGE)
		return table;
	return el('div', {}, table,
		pageLinks(offset, COMMIT_PAGE, page.length, points.length, hrefOf, 'commits'));
}

function warningItem(w, extra) {
	return el('div', { class: 'new-warning' },
		el('div', {}, badge(w.state || 'new'), ' ', triageBadge(w.triage),
			w.triage && w.triage.who ? ' ' : null,
			link('#/warning/' + enc(w.identity) + '/' + enc(extra.commit),
				w.message)),
		el('div', { class: 'where mono' },
			w.file + ':' + w.line + (w.column ? ':' + w.column : '') +
			(w.function ? ' in ' + w.function + '()' : '') +
			(w.option ? ' [' + w.option + ']' : '')),
		classification(w),
		extra.subject ? el('div', { class: 'where' },
			'introduced by #' + extra.position + ' ' + extra.subject) : null);
}

// A run's base and tip: its first and last points that were built (a
// point whose build failed has no warnings to compare); [] when none was.
function baseAndTip(points) {
	const built = points.filter((p) => p.warnings !== null);
	return built.length ? [built[0], built[built.length - 1]] : [];
}

// The warnings new since the base and still there at the tip, from one
// request (the diff of the two), whatever the number of commits: DIFF,
// that request already on its way, or null.
async function newPanel(points, run, diff) {
	const panel = el('section', { class: 'card new-panel', id: 'new-warnings' },
		el('h2', {}, 'New warnings'));
	const built = points.filter((p) => p.warnings !== null);
	if (!built.some((p) => p.new)) {
		panel.appendChild(el('p', { class: 'muted' }, 'No commit of this run adds a warning.'));
		return panel;
	}
	if (built.length < 2) {
		// one point (an ingested log): new against the tree's previous build
		const p = built[0];
		const res = await api('/api/commits/' + enc(p.id) +
			'/warnings?state=new&limit=50');
		for (const w of res.warnings)
			panel.appendChild(warningItem(w, { commit: p.id }));
		return panel;
	}
	const [first, last] = baseAndTip(points);
	const d = diff ? await diff :
		await api('/api/diff?run=' + run + '&from=' + first.id + '&to=' + last.id);
	if (d instanceof Error)
		throw d;
	panel.appendChild(el('p', { class: 'muted' }, d.counts.new + ' new since the base and ' +
		'still there at the tip'));
	for (const w of d.new.slice(0, 50))
		panel.appendChild(warningItem(Object.assign({ state: 'new' }, w),
			{ commit: last.commit.sha }));
	if (d.new.length > 50 || d.counts.new)
		panel.appendChild(link('#/diff?run=' + run + '&from=' + first.id + '&to=' + last.id,
			'the whole diff of base and tip'));
	return panel;
}

async function viewRun(id, q) {
	let run = pickRun(id);
	if (run && !runs.some((r) => r.id === run)) {
		// a run made since the page read the list, or none at all
		await loadRuns();
		run = pickRun(id);
		if (!runs.some((r) => r.id === run)) {
			noSuchRun(run);
			return;
		}
	}
	if (!run) {
		show(card('No runs yet', el('p', {}, 'Run ', el('code', {}, 'kwarn run'), ' or ',
			el('code', {}, 'kwarn ingest'), ' first.')));
		return;
	}
	// the run's compilers (kwarn run --cc ... --cc ...): one burn-down each
	const me = runs.find((r) => r.id === run) || { id: run };
	const group = me.group ? [me, ...runs.filter((r) => r.group === me.group &&
		r.id !== run).sort((a, b) => a.id - b.id)] : [me];
	// every run's burn-down in one request, in GROUP's order, and beside
	// it the base -> tip diff of the new-warnings panel, when there can be
	// one (the server finds the first and last built commits itself)
	const diff = me.commits > 1 ? api('/api/diff?run=' + run + '&from=base&to=tip')
		.catch((e) => e) : null;
	const byId = new Map((await api('/api/runs/' + run + '/burndown?group=1'))
		.map((m) => [m.id, m]));
	const bds = group.map((r) => (byId.get(r.id) || {}).burndown || []);
	const archs = group.map((r) => (byId.get(r.id) || {}).arch);
	const points = bds[0];
	const byPos = bds.map((bd) => new Map(bd.map((x) => [x.position, x])));
	const commits = points.map((p) => {
		let boot = p.boot;
		group.forEach((r, k) => {
			const q = byPos[k].get(p.position);
			if (q && q.boot && q.boot !== 'pass' && (!boot || boot === 'pass'))
				boot = q.boot + (k ? ' (' + (r.cc || 'run #' + r.id) + ')' : '');
		});
		return { id: p.id, run: run, position: p.position, sha: p.commit.sha,
			subject: p.subject,
			boot: boot, new: p.new, fixed: p.fixed };
	});
	const built = points.filter((p) => p.warnings !== null);
	const [first, last] = baseAndTip(points);
	const sum = (k) => built.reduce((a, p) => a + (p[k] || 0), 0);
	// the tip's likely missing breaks (kwarn classify)
	const nMissing = last && last.missing_break;
	// now: open against decided (the burn-down's by_triage)
	const bt = (last && last.by_triage) || {};
	const decided = TRIAGE.filter((t) => t !== 'open' && bt[t]);
	const summary = el('div', { class: 'summary' },
		el('span', {}, el('b', {}, num(first && first.warnings)), ' at the base'),
		el('span', {}, el('b', {}, num(last && last.warnings)), ' now'),
		last ? el('span', { class: 'triage-open' }, link(commitHref(run, last.position,
			'triage=open'), el('b', {}, num(bt.open)), ' open')) : null,
		last ? el('span', { class: 'triage-decided' }, el('b', {},
			decided.reduce((a, t) => a + bt[t], 0)), ' triaged',
		...decided.map((t, i) => [i ? ', ' : ': ', link(commitHref(run, last.position,
			'triage=' + t), bt[t] + ' ' + t)]).flat()) : null,
		last ? el('span', { class: 'missing-break' + (nMissing ? ' some' : '') },
			link(commitHref(run, last.position, 'verdict=missing-break'),
				el('b', {}, num(nMissing)), ' likely missing break')) : null,
		el('span', {}, el('b', {}, sum('fixed')), ' fixed'),
		el('span', {}, el('b', {}, sum('new')), ' new'),
		// what the tip did not build: neither fixed nor still there
		last && last.not_built ? el('span', { class: 'not-built' },
			el('b', {}, last.not_built), ' not built') : null,
		el('span', {}, el('b', {}, points.length), ' commits'),
		first && last ? link('#/diff?run=' + run + '&from=' + first.id + '&to=' + last.id,
			'base → tip diff') : null);
	// the table's page: ?rows=OFFSET, else the one with the commit ?at=POS
	const at = q && q.get('at');
	const atIdx = at === null || at === undefined ? -1 :
		points.findIndex((p) => String(p.position) === at);
	const asked = q && q.get('rows') ? Math.floor(Number(q.get('rows'))) || 0 :
		Math.max(0, atIdx);
	// the first row of the page that holds that row, a page with rows
	const row = Math.min(Math.max(0, asked), Math.max(0, points.length - 1));
	const offset = row - row % COMMIT_PAGE;
	const left = el('div', {},
		card('Burn-down of run #' + run + (group.length > 1 ? ' with ' +
			group.slice(1).map((r) => '#' + r.id).join(', ') : ''), summary,
		chart(groupSeries(group, bds, archs), commits)),
		card('Commits', commitTable(points, offset, (o) => '#/run/' + run + '?rows=' + o,
			at, run)));
	const right = el('div', {}, await newPanel(points, run, diff));
	show(el('div', { class: 'grid' }, left, right));
	// #/run/N?at=POS: that commit's point has the focus, its tip open
	const pt = at !== null && at !== undefined &&
		document.querySelector('svg.chart .point[data-position="' + Number(at) + '"]');
	if (pt)
		pt.focus();
}

// ---- over time: subsystems, files or options x the run's commits ----

// The whole run in 120 x 24 pixels: at most a low and a high per pixel
// column (the browser draws no more of a 1,000-commit row), the
// commits the table shows shaded.
function sparkline(counts, max, shown) {
	const W = 120, H = 24, n = counts.length;
	const sx = n <= 1 ? 0 : W / (n - 1), sy = (H - 4) / (max || 1);
	const px = (i) => (n <= 1 ? W / 2 : Math.round(i * sx * 10) / 10);
	const pt = (i) => px(i) + ',' + Math.round((H - 2 - counts[i] * sy) * 10) / 10 + ' ';
	const per = Math.max(1, Math.ceil(n / W));
	let pts = '';
	// plain loops: 40 rows of 1,000 counts run before the JIT is warm
	for (let i = 0; i < n; i += per) {
		const end = Math.min(n, i + per);
		let lo = -1, hi = -1;
		for (let j = i; j < end; j++) {
			const v = counts[j];
			if (v === null)
				continue;
			if (lo < 0 || v < counts[lo])
				lo = j;
			if (hi < 0 || v > counts[hi])
				hi = j;
		}
		if (lo >= 0)
			pts += lo === hi ? pt(lo) : lo < hi ? pt(lo) + pt(hi) : pt(hi) + pt(lo);
	}
	const g = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'spark', 'aria-hidden': 'true' });
	if (shown && n > 1 && shown[1] - shown[0] < n)
		g.appendChild(svg('rect', { x: px(shown[0]), y: 0, height: H,
			width: Math.max(1, px(shown[1] - 1) - px(shown[0])), class: 'shown' }));
	g.appendChild(svg('polyline', { points: pts.trim() }));
	return g;
}

// A table cell of the over-time view, made directly: there are
// thousands of them, and el()'s generality costs a third of the time.
// A count is a link to those warnings at that commit (HREF); a zero or
// a commit not built has nothing to show.
function countCell(v, at, href) {
	const td = document.createElement('td');
	td.className = 'num cell' + (at ? ' at' : '') + (v ? '' : ' zero');
	td.setAttribute('data-count', v === null ? '' : String(v));
	if (v) {
		const a = document.createElement('a');
		a.href = href;
		a.textContent = String(v);
		td.appendChild(a);
	} else {
		td.textContent = num(v);
	}
	return td;
}

const OVER = { subsystem: 'MAINTAINERS entry', file: 'file', option: 'option' };
const OVER_TITLE = { subsystem: 'Subsystems', file: 'Files', option: 'Options' };
// rows (names) and columns (commits) of one page of the over-time table:
// 25 columns fit a laptop's width, and the browser lays out 40 x 25
// cells in a frame, not 40 x 1,000 (the sparkline shows the whole run)
const OVER_PAGE = 40;
const OVER_COLS = 25;

// Which OVER_COLS commits of N the table shows: those from COLS when
// asked, else a window around the selected commit AT.
function overWindow(n, at, cols) {
	const last = Math.max(0, n - OVER_COLS);
	const from = cols !== null && cols !== '' && !isNaN(Number(cols)) ? Number(cols) :
		at - Math.floor(OVER_COLS / 2);
	const s = Math.min(last, Math.max(0, Math.floor(from)));
	return [s, Math.min(n, s + OVER_COLS)];
}

async function viewOver(by, q) {
	const run = pickRun(q.get('run'));
	const from = Math.max(0, Math.floor(Number(q.get('rows'))) || 0);
	const res = await api('/api/runs/' + run + '/series?by=' + by + '&limit=' + OVER_PAGE +
		'&offset=' + from);
	const commits = res.commits;
	let at = commits.findIndex((c) => String(c.position) === q.get('at'));
	if (at < 0)
		at = Math.max(0, commits.length - 1);
	const tabs = el('div', { class: 'filters' }, ...Object.keys(OVER).map((b) =>
		b === by ? el('b', {}, 'per ' + OVER[b]) :
			link('#/over/' + b + '?run=' + run, 'per ' + OVER[b])));
	if (by === 'subsystem' && !res.maintainers) {
		show(card('Subsystems over time', tabs, el('p', { class: 'muted' },
			'The tree of this run has no MAINTAINERS file stored.')));
		return;
	}
	const [c0, c1] = overWindow(commits.length, at, q.get('cols'));
	const shown = commits.slice(c0, c1);
	const c = commits[at];
	// the warnings of row NAME at commit X
	const cellHref = (name, x) => by === 'subsystem' ?
		'#/subsystem/' + run + '/' + enc(name) + '?commit=' + x.id :
		'#/warnings?run=' + run + '&commit=' + x.id + '&' + by + '=' + enc(name);
	// a row's name: its warnings at the selected commit, or where it last
	// had any when it has none there (a fixed subsystem's page is empty)
	const rowHref = (r) => {
		if (!c)
			return '#';
		let i = at;
		if (!r.counts[i])
			for (let k = r.counts.length - 1; k >= 0; k--)
				if (r.counts[k]) {
					i = k;
					break;
				}
		return cellHref(r.name, commits[i]);
	};
	// the page's address: the selected commit, the first column, the first row
	const href = (i, cols, rows) => '#/over/' + by + '?run=' + run + '&at=' +
		(commits[i] ? commits[i].position : 0) + '&cols=' + cols +
		(rows ? '&rows=' + rows : '');
	const head = el('tr', {}, el('th', { class: 'name' }, OVER[by]),
		el('th', {}, 'trend'),
		...shown.map((x, k) => el('th', { class: 'num col' + (c0 + k === at ? ' at' : ''),
			title: '#' + x.position + ' ' + short(x.sha) + ' ' + (x.subject || '') },
		link(href(c0 + k, c0, from), String(x.position)))));
	const max = res.max, page = res.rows, total = res.total_rows;
	const rows = page.map((r) => el('tr', { class: 'over-row' },
		el('td', { class: 'name' }, el('a', { href: rowHref(r), class: 'cut',
			title: r.name }, r.name)),
		el('td', { class: 'sparkcell' }, sparkline(r.counts, max, [c0, c1])),
		...r.counts.slice(c0, c1).map((v, k) => countCell(v, c0 + k === at,
			v ? cellHref(r.name, commits[c0 + k]) : null))));
	// the commits of the window: the others are a page away
	// (and the selected one, when the columns moved away from it)
	const picked = at >= c0 && at < c1 ? [] : [at];
	const pick = el('select', { 'aria-label': 'commit' }, ...picked.concat(shown.map((x, k) =>
		c0 + k)).filter((i) => commits[i]).map((i) =>
		el('option', { value: String(i) }, '#' + commits[i].position + ' ' +
			short(commits[i].sha) + ' ' + (commits[i].subject || ''))));
	pick.value = String(at);
	pick.addEventListener('change', () => {
		location.hash = href(Number(pick.value), c0, from);
	});
	document.title = 'kwarn: ' + OVER[by] + ' over run #' + run;
	show(card(OVER_TITLE[by] + ' over the commits of run #' + run, tabs,
		el('label', { class: 'pick' }, 'rows lead to the warnings at ', pick),
		pageLinks(c0, OVER_COLS, c1 - c0, commits.length, (o) => href(at, o, from), 'commits'),
		el('div', { class: 'scroll' }, el('table', { class: 'over', id: 'over' },
			el('thead', {}, head), el('tbody', {}, ...rows))),
		pageLinks(from, OVER_PAGE, page.length, total, (o) => href(at, c0, o), 'rows')));
}

// ---- warnings filtered by file, option or subsystem at a commit ----

async function viewWarnings(q) {
	const keep = ['run', 'commit', 'file', 'option', 'state', 'triage', 'verdict'];
	const p = new URLSearchParams();
	for (const k of keep)
		if (q.get(k))
			p.set(k, q.get(k));
	const offset = Number(q.get('offset') || 0);
	const res = await api('/api/warnings?' + p.toString() + '&limit=100&offset=' + offset);
	pickRun(res.commit.run);
	const what = q.get('file') || q.get('option') || '';
	// the address with KEY (triage, verdict) set to V, '' for any
	const keeping = (key) => (v) => {
		const n = new URLSearchParams(p);
		if (v)
			n.set(key, v);
		else
			n.delete(key);
		return '#/warnings?' + n.toString();
	};
	show(card(null, el('h2', { class: 'wrap' }, what + ': warnings at commit ' +
		short(res.commit.sha) + ' (#' + res.commit.position + ')'),
	triageFilter(q.get('triage'), keeping('triage')),
	verdictFilter(q.get('verdict'), keeping('verdict')),
	warningTable(res.warnings, res.commit.sha),
	pager(res, (o) => '#/warnings?' + p.toString() + '&offset=' + o)));
}

// ---- one warning ----

function stateStrip(st, identity) {
	return el('div', { class: 'strip', role: 'list', 'aria-label': 'state at every commit' },
		...st.states.map((c) => el('a', { role: 'listitem',
			class: 'strip-cell ' + (c.state || 'none'),
			href: c.state && c.state !== 'fixed' ? '#/warning/' + enc(identity) + '/' + enc(c.sha) :
				commitHref(st.run, c.position),
			title: '#' + c.position + ' ' + short(c.sha) + ' ' + (c.subject || '') + ': ' +
				(c.state ? c.state.replace('_', ' ') : 'not seen') },
		String(c.position))));
}

function commitLink(c, run) {
	return c ? link(commitHref(run, c.position), '#' + c.position + ' ' + short(c.sha) + ' ' +
		(c.subject || '')) : el('span', { class: 'muted' }, 'not in this run');
}

// How many lines of source around the warning (?context=N, 0 to 200,
// the server's default 5): a change goes to the URL, so it is shared.
function contextControl(q) {
	const cur = (q && q.get('context')) || '5';
	const s = el('select', { id: 'context', 'aria-label': 'lines of context' },
		...['0', '2', '5', '10', '20', '50', '200'].concat(
			['0', '2', '5', '10', '20', '50', '200'].includes(cur) ? [] : [cur])
			.map((v) => el('option', { value: v, selected: v === cur ? '' : null }, v)));
	s.value = cur;
	s.addEventListener('change', () => {
		const [path, qs] = location.hash.split('?');
		const n = new URLSearchParams(qs || '');
		n.set('context', s.value);
		location.hash = path + '?' + n.toString();
	});
	return el('div', { class: 'filters' }, el('label', {}, 'lines of context ', s));
}

async function viewWarning(identity, commit, q) {
	const ctx = q && q.get('context') ? '&context=' + enc(q.get('context')) : '';
	const inRun = q && q.get('run') ? '&run=' + enc(q.get('run')) : '';
	const s = await api('/api/warnings/' + enc(identity) + '/source?' +
		(commit ? 'commit=' + enc(commit) : '') + ctx + inRun);
	const st = await api('/api/warnings/' + enc(identity) + '/states?run=' + s.commit.run);
	pickRun(s.commit.run);
	const srcPre = (lines, hit) => {
		const pre = el('pre', { class: 'source' });
		for (const l of lines)
			pre.appendChild(el('span', { class: 'row' + (l.line === hit ? ' hit' :
				l.mark ? ' note' : '') }, el('span', { class: 'ln' }, l.line), l.text));
		return pre;
	};
	const notes = el('ul', {}, ...s.notes.map((n) => el('li', { class: 'mono wrap' },
		n.file + ':' + n.line + ':' + n.column + ': note: ' + n.message,
		n.lines ? srcPre(n.lines, n.line) : n.source ? el('pre', {}, n.source) : null)));
	const chain = [];
	if (st.include_chain)
		chain.push(el('li', { class: 'mono wrap' }, 'included from ' + st.include_chain));
	if (s.inline_chain)
		chain.push(el('li', { class: 'mono wrap' }, 'inlined ' + s.inline_chain));
	document.title = 'kwarn: ' + s.message;
	show(card(null,
		el('h2', { class: 'wrap' }, s.message),
		el('p', { class: 'mono wrap' }, s.file + ':' + s.line + ':' + s.column +
			(s.function ? ' in ' + s.function + '()' : '') +
			(s.option ? ' [' + s.option + ']' : '')),
		classification(s),
		triageDetail(s.triage),
		triageWritable ? triageControl(identity, s.triage) : null,
		el('p', { class: 'muted' }, 'at commit ' + short(s.commit.sha) + ' (#' +
			s.commit.position + '), source from ' +
			(s.from === 'db' ? 'the stored diagnostic (the tree is not cached)' :
				'the tree at this commit')),
		contextControl(q),
		srcPre(s.lines, s.line),
		chain.length ? el('ul', { class: 'chain' }, ...chain) : null,
		el('h2', {}, 'State at every commit of run #' + st.run), stateStrip(st, identity),
		el('dl', { class: 'facts' },
			el('dt', {}, 'introduced'), el('dd', {}, commitLink(st.introduced, st.run)),
			el('dt', {}, 'fixed'), el('dd', {}, st.fixed ? commitLink(st.fixed, st.run) :
				el('span', { class: 'muted' }, 'not fixed in this run'))),
		el('h2', {}, 'Notes'), s.notes.length ? notes : el('p', { class: 'muted' }, 'none'),
		el('h2', {}, 'Reproduce'), el('pre', { class: 'repro mono' },
			s.reproducer || '(no object known)')));
}

// ---- diff of two commits, or of two nights ----

// LIST is the first page of KIND (the server pages each kind at 1,000);
// COUNT the whole diff's.
function diffList(kind, list, count, commit) {
	const at = kind === 'new' || kind === 'remaining' ? commit.to : commit.from;
	const item = (w) => {
		const where = w.file + ':' + w.line + (w.function ? ' in ' + w.function + '()' : '') +
			(w.option ? ' [' + w.option + ']' : '');
		return el('li', { class: 'diff-item ' + kind, 'data-identity': w.identity },
			triageBadge(w.triage), w.triage && w.triage.who ? ' ' : null,
			link('#/warning/' + enc(w.identity) + '/' + enc(at), w.message),
			el('div', { class: 'where mono cut', title: where }, where));
	};
	return el('section', { class: 'diff-list', id: 'diff-' + kind },
		el('h2', {}, kind.replace('_', ' ') + ' (' + count + ')'),
		list.length ? el('ul', {}, ...list.map(item)) : el('p', { class: 'muted' }, 'none'),
		list.length < count ? el('p', { class: 'muted' }, 'the first ' + list.length +
			' of ' + count + ' shown') : null);
}

// What kwarn nightly reported of each nightly run it compared (GET
// /api/nightly), by run id: the causes are its own, never guessed here.
async function nightlyReports() {
	const m = new Map();
	for (const x of await api('/api/nightly'))
		m.set(x.run, x.report);
	return m;
}

// The causes kwarn nightly gave the new warnings of REP, counted:
// "2 code, 1 compiler".
function causeCounts(rep) {
	const c = {};
	for (const w of rep.new || [])
		c[w.cause] = (c[w.cause] || 0) + 1;
	return Object.entries(c).map(([k, v]) => v + ' ' + k).join(', ');
}

// The top bar's bare #/diff (or #/diff?run=N): the run's base → tip, as
// the run page's link has it, for the run picked (at first the newest).
async function defaultDiff(q, p) {
	const run = pickRun(q.get('run'));
	if (!run)
		return null;
	const points = await api('/api/runs/' + run + '/burndown');
	const [first, last] = baseAndTip(points);
	if (!first)
		return null;
	p.set('run', run);
	p.set('from', first.id);
	p.set('to', last.id);
	return { d: await api('/api/diff?' + p.toString()), points: points };
}

async function viewDiff(q) {
	const p = new URLSearchParams();
	for (const k of ['from', 'to', 'run', 'from_run', 'to_run'])
		if (q.get(k))
			p.set(k, q.get(k));
	let d, points;
	if (['from', 'to', 'from_run', 'to_run'].some((k) => p.has(k))) {
		const run = q.get('run') ? pickRun(q.get('run')) : null;
		[d, points] = await Promise.all([api('/api/diff?' + p.toString()),
			run ? api('/api/runs/' + run + '/burndown') : Promise.resolve(null)]);
	} else {
		const def = await defaultDiff(q, p);
		if (!def) {
			show(card('Diff', el('p', { class: 'muted' },
				'No run has a built commit to compare yet.')));
			return;
		}
		({ d, points } = def);
	}
	const c = d.counts;
	document.title = 'kwarn diff: ' + c.new + ' new, ' + c.fixed + ' fixed, ' +
		c.remaining + ' remaining' + (c.not_built ? ', ' + c.not_built + ' not built' : '');
	let picker = null;
	if (points) {
		// a commit by its position, the run's commits offered as one list:
		// two selects of 1,000 options would cost the page a frame
		const list = el('datalist', { id: 'diff-commits' }, ...points.map((x) =>
			el('option', { value: String(x.position) }, short(x.commit.sha) + ' ' +
				(x.subject || ''))));
		const byPos = new Map(points.map((x) => [String(x.position), x]));
		const pos = (name, cur) => {
			const i = el('input', { type: 'number', 'aria-label': name, list: 'diff-commits',
				min: points[0].position, max: points[points.length - 1].position,
				value: cur.position, title: short(cur.sha) + ' ' +
					((byPos.get(String(cur.position)) || {}).subject || '') });
			i.addEventListener('change', () => {
				const x = byPos.get(i.value);
				if (!x)
					return;
				const n = new URLSearchParams(p);
				n.set(name, String(x.id));
				location.hash = '#/diff?' + n.toString();
			});
			return i;
		};
		picker = el('div', { class: 'filters' }, list,
			el('label', {}, 'from commit #', pos('from', d.from)),
			el('label', {}, 'to commit #', pos('to', d.to)));
	}
	let cause = null;
	if (q.get('from_run') && q.get('to_run')) {
		const rep = (await nightlyReports()).get(d.to.run);
		if (rep && rep.previous_run === d.from.run && (rep.new || []).length)
			cause = el('p', {}, 'cause of the new warnings, as kwarn nightly ' +
				'found it: ', el('b', { class: 'cause' }, causeCounts(rep)));
	}
	const subs = d.subsystems.sort((a, b) => (b.new + b.fixed) - (a.new + a.fixed) ||
		a.name.localeCompare(b.name));
	const subTable = d.maintainers ? el('div', { class: 'scroll' }, el('table', { id: 'diff-subsystems' },
		el('thead', {}, el('tr', {}, el('th', {}, 'MAINTAINERS entry'), el('th', { class: 'num' }, 'new'),
			el('th', { class: 'num' }, 'fixed'), el('th', { class: 'num' }, 'remaining'),
			el('th', { class: 'num' }, 'not built'))),
		el('tbody', {}, ...subs.map((s) => el('tr', {},
			el('td', {}, el('span', { class: 'cut', title: s.name }, s.name)),
			countTd('new', s.new), countTd('fixed', s.fixed),
			el('td', { class: 'num' }, s.remaining), countTd('nb', s.not_built)))))) :
		el('p', { class: 'muted' }, 'The tree has no MAINTAINERS file stored.');
	const commit = { from: d.from.sha, to: d.to.sha };
	show(card('Diff of #' + d.from.position + ' ' + short(d.from.sha) + ' (run #' + d.from.run +
		') → #' + d.to.position + ' ' + short(d.to.sha) + ' (run #' + d.to.run + ')',
	picker, cause,
	el('div', { class: 'summary' }, el('span', {}, el('b', {}, c.new), ' new'),
		el('span', {}, el('b', {}, c.fixed), ' fixed'),
		el('span', {}, el('b', {}, c.remaining), ' remaining'),
		el('span', {}, el('b', {}, c.not_built), ' not built'))),
	card('By subsystem', subTable),
	card(null, diffList('new', d.new, c.new, commit),
		diffList('fixed', d.fixed, c.fixed, commit),
		diffList('not_built', d.not_built, c.not_built, commit),
		diffList('remaining', d.remaining, c.remaining, commit)));
}

// ---- nightly: trees x nights ----

function nightlyNews(rep) {
	return el('ul', { class: 'night-new' }, ...rep.new.map((w) => {
		const where = w.file + ':' + w.line + (w.function ? ' in ' + w.function + '()' : '') +
			(w.option ? ' [' + w.option + ']' : '');
		return el('li', { 'data-identity': w.identity || '', 'data-cause': w.cause },
			el('span', { class: 'cause cause-' + w.cause.replace(/\W+/g, '-') }, w.cause),
			' ', triageBadge(w.triage), w.triage && w.triage.who ? ' ' : null,
			w.identity ? link('#/warning/' + enc(w.identity) + '?run=' +
				rep.run, w.message) : w.message,
			el('div', { class: 'where mono cut', title: where }, where));
	}));
}

async function viewNightly() {
	let reports;
	// the runs as start() read them for this first view, else again
	await Promise.all([runsRead === routes ? null : loadRuns(),
		nightlyReports().then((m) => {
			reports = m;
		})]);
	const all = runs.filter((r) => r.kind === 'nightly');
	const day = (r) => new Date(r.started_at * 1000).toISOString().slice(0, 10);
	const nights = [...new Set(all.map(day))].sort();
	const trees = [...new Set(all.map((r) => r.tree.name))].sort();
	if (!all.length) {
		show(card('Nightly', el('p', { class: 'muted' }, 'No ', el('code', {}, 'kwarn nightly'),
			' run yet.')));
		return;
	}
	const rows = trees.map((t) => {
		const mine = all.filter((r) => r.tree.name === t).sort((a, b) => a.id - b.id);
		return el('tr', {}, el('td', {}, el('span', { class: 'cut', title: t }, t)),
			...nights.map((nt) => {
				const here = mine.filter((r) => day(r) === nt);
				return el('td', { class: 'night' }, ...here.map((r) => {
					const rep = reports.get(r.id);
					const ccChange = rep && rep.previous_compiler;
					const news = rep && rep.new ? rep.new : [];
					return el('div', { class: 'night-run' + (ccChange ? ' cc-change' : ''),
						'data-run': r.id },
					link('#/run/' + r.id, num(r.warnings)),
					el('span', { class: 'muted' }, ' ' + ((r.cc || r.compiler || '').split(' ')[0])),
					ccChange ? el('span', { class: 'cc-mark', title: 'compiler changed from ' +
						rep.previous_compiler }, ' ⚑ compiler changed') : null,
					!rep ? el('div', { class: 'muted' }, 'no report kept by kwarn nightly') :
						el('div', {}, news.length + ' new' +
							(news.length ? ' (' + causeCounts(rep) + ')' : ''),
						rep.previous_run ? ' · ' : null,
						rep.previous_run ? link('#/diff?from_run=' + rep.previous_run +
							'&to_run=' + r.id, 'vs previous night') : null),
					news.length ? nightlyNews(rep) : null);
				}));
			}));
	});
	show(card('Nightly runs: trees × nights', el('div', { class: 'scroll' },
		el('table', { id: 'nightly' }, el('thead', {}, el('tr', {}, el('th', {}, 'tree'),
			...nights.map((nt) => el('th', {}, nt)))), el('tbody', {}, ...rows))),
	el('p', { class: 'muted' }, 'Each count links to the night\'s run; the new warnings ' +
		'of a night carry the cause kwarn nightly gave them (code, compiler, ' +
		'or newer tree).')));
}

// ---- warnings at a commit ----

function warningTable(list, commit) {
	const rows = list.map((w) => el('tr', {},
		el('td', {}, badge(w.state), w.triage && w.triage.who ? ' ' : null,
			triageBadge(w.triage)),
		el('td', { class: 'mono' }, w.file + ':' + w.line + ':' + w.column),
		el('td', { class: 'mono' }, w.function || ''),
		el('td', {}, link('#/warning/' + enc(w.identity) + '/' + enc(commit), w.message)),
		el('td', { class: 'verdict' }, verdictBadge(w)),
		el('td', { class: 'opt mono' }, w.option || ''),
		el('td', { class: 'num' }, w.seen)));
	return el('div', { class: 'scroll' }, el('table', { class: 'warnings' },
		el('thead', {}, el('tr', {}, el('th', {}, 'state'), el('th', {}, 'where'),
			el('th', {}, 'function'), el('th', {}, 'message'), el('th', {}, 'verdict'),
			el('th', { class: 'opt' }, 'option'), el('th', { class: 'num' }, 'seen'))),
		el('tbody', {}, ...rows)));
}

// The links around one page of a list: OFFSET and LIMIT as the API
// took them, SHOWN items of TOTAL on this page, WHAT they are ("rows").
function pageLinks(offset, limit, shown, total, hrefOf, what) {
	const p = el('div', { class: 'pager' });
	const w = what ? ' ' + what : '';
	if (offset > 0)
		p.appendChild(link(hrefOf(Math.max(0, offset - limit)), '← previous' + w));
	p.appendChild(el('span', { class: 'muted' }, (total ? offset + 1 : 0) + '–' +
		(offset + shown) + ' of ' + total + w));
	if (offset + shown < total)
		p.appendChild(link(hrefOf(offset + limit), 'next' + w + ' →'));
	return p;
}

function pager(res, hrefOf) {
	return pageLinks(res.offset, res.limit, res.warnings.length, res.total, hrefOf, '');
}

// A date of the epoch's seconds T as YYYY-MM-DD HH:MM UTC, '' for none
const when = (t) => (t ? new Date(t * 1000).toISOString().slice(0, 16)
	.replace('T', ' ') + ' UTC' : '');

// A patch's diffstat: a row a file, its counts and a bar of them.
function diffstat(pt) {
	const most = Math.max(1, ...pt.files.map((f) => f.additions + f.deletions));
	const bar = (f) => {
		const w = (n) => Math.round(n / most * 60);
		return el('span', { class: 'statbar', 'aria-hidden': 'true' },
			el('span', { class: 'add', style: 'width:' + w(f.additions) + 'px' }),
			el('span', { class: 'del', style: 'width:' + w(f.deletions) + 'px' }));
	};
	return el('div', { class: 'scroll' }, el('table', { id: 'diffstat' },
		el('thead', {}, el('tr', {}, el('th', {}, 'file'),
			el('th', { class: 'num' }, 'added'), el('th', { class: 'num' }, 'removed'),
			el('th', {}, ''))),
		el('tbody', {}, ...pt.files.map((f) => el('tr', { 'data-status': f.status },
			el('td', { class: 'mono' }, f.old_path ? f.old_path + ' → ' + f.path : f.path,
				f.status === 'A' ? ' (new)' : f.status === 'D' ? ' (deleted)' : null),
			countTd('fixed', f.binary || f.additions, f.binary ? 'bin' : '+' + f.additions),
			countTd('new', !f.binary && f.deletions, f.binary ? '' : '−' + f.deletions),
			el('td', {}, bar(f)))))),
	el('p', { class: 'muted' }, pt.files.length + ' file' + (pt.files.length === 1 ? '' : 's') +
		' changed, ' + pt.additions + ' insertions(+), ' + pt.deletions + ' deletions(−)'));
}

// A unified diff, each line classed by what it is.
function diffText(text, truncated) {
	const pre = el('pre', { class: 'source patch', id: 'patch' });
	for (const l of text.split('\n')) {
		const cls = /^(diff |index |--- |\+\+\+ |new file|deleted file|similarity|rename )/
			.test(l) ? 'file' : l[0] === '@' ? 'hunk' : l[0] === '+' ? 'add' :
			l[0] === '-' ? 'del' : '';
		pre.appendChild(el('span', { class: 'row' + (cls ? ' ' + cls : '') }, l));
	}
	if (truncated)
		pre.appendChild(el('span', { class: 'row muted' }, '… the diff is cut here'));
	return pre;
}

// The commit page: #/commit/POS?run=N (the commit's position in its
// run); #/commit/REF (an id, a sha or a prefix, the older form) is the
// same page, its address then made the first.
async function viewCommit(ref, q) {
	const state = q.get('state') || '';
	const triage = q.get('triage') || '';
	const verd = q.get('verdict') || '';
	const offset = Number(q.get('offset') || 0);
	const byPos = q.get('run') && /^[0-9]{1,6}$/.test(ref || '');
	const c = await api(byPos ? '/api/runs/' + enc(q.get('run')) + '/commits/' + ref :
		'/api/commits/' + enc(ref) + (q.get('run') ? '?run=' + enc(q.get('run')) : ''));
	pickRun(c.run);
	// the view's address with STATE, TRIAGE and VERDICT (a first page)
	const href = (s, t, v = verd) => commitHref(c.run, c.position, new URLSearchParams(
		Object.entries({ state: s, triage: t, verdict: v }).filter(([, x]) => x)).toString());
	if (!byPos)
		history.replaceState(null, '', href(state, triage) +
			(offset ? '&offset=' + offset : ''));
	const res = await api('/api/commits/' + c.id + '/warnings?limit=100&offset=' + offset +
		(state ? '&state=' + enc(state) : '') +
		(triage ? '&triage=' + enc(triage) : '') +
		(verd ? '&verdict=' + enc(verd) : ''));
	// the patch came with the commit (GET /api/commits/{ref}/patch alone)
	const patch = c.change;
	const author = c.author || (patch && (patch.author + ' <' + patch.email + '>'));
	const date = c.date || (patch && patch.date);
	const nav = (n, rel) => n ? link(commitHref(c.run, n.position),
		rel === 'prev' ? '← #' + n.position + ' ' + (n.subject || short(n.sha)) :
			'#' + n.position + ' ' + (n.subject || short(n.sha)) + ' →') :
		el('span', { class: 'muted' }, rel === 'prev' ? 'the first commit' :
			'the last commit');
	const body = patch ? patch.message.replace(/^[^\n]*\n*/, '').trim() : '';
	const filters = el('div', { class: 'filters' },
		...[['', 'at this commit'], ['new', 'new'], ['fixed', 'fixed'],
			['not_built', 'not built']].map(([s, label]) =>
			s === state ? el('b', {}, label) : link(href(s, triage), label)));
	document.title = 'kwarn: #' + c.position + ' ' + (c.subject || short(c.sha));
	show(card(null, el('h2', { class: 'wrap', id: 'commit-subject' }, '#' + c.position + ' ' +
		(c.subject || (patch && patch.message.split('\n')[0]) || short(c.sha))),
	el('dl', { class: 'facts' },
		el('dt', {}, 'commit'), el('dd', { class: 'mono' }, c.sha),
		author ? el('dt', {}, 'author') : null,
		author ? el('dd', { id: 'commit-author' }, author) : null,
		date ? el('dt', {}, 'date') : null, date ? el('dd', {}, when(date)) : null,
		c.patch ? el('dt', {}, 'patch') : null, c.patch ? el('dd', { class: 'mono' }, c.patch) : null,
		el('dt', {}, 'run'), el('dd', {}, link('#/run/' + c.run + '?at=' + c.position,
			'run #' + c.run + ', this commit on its burn-down')),
		c.build ? el('dt', {}, 'boot') : null,
		c.build ? el('dd', {}, c.boot ? link('#/boot/' + c.build, verdict(c.boot)) :
			el('span', { class: 'muted' }, 'not booted')) : null),
	body ? el('pre', { class: 'message wrap' }, body) : null,
	el('nav', { class: 'commit-nav', 'aria-label': 'previous and next commit' },
		nav(c.previous, 'prev'), nav(c.next, 'next'))),
	card('Patch', patch ? diffstat(patch) : el('p', { class: 'muted', id: 'no-patch' },
		c.change_error || 'no patch'),
	patch ? diffText(patch.diff, patch.truncated) : null),
	card('Warnings at this commit', filters,
		triageFilter(triage, (t) => href(state, t)),
		verdictFilter(verd, (v) => href(state, triage, v)),
		warningTable(res.warnings, res.commit.sha),
		pager(res, (o) => href(state, triage) + '&offset=' + o)));
}

// ---- boots ----

// A serial console's text as a page shows it: terminal escapes (SeaBIOS
// clears the screen, the kernel colours its messages: ESC[2J, ESC[0m)
// and other control characters dropped, CRLF read as a line's end.
const ESCAPES = /\x1b(?:\[[0-?]*[ -\/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -\/]*[0-~])?|\r(?=\n)|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g;
const consoleText = (s) => s.replace(ESCAPES, '').replace(/\r/g, '\n');

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
	const c = b.commit;
	if (c)
		pickRun(c.run);
	show(card('Boot of build ' + build, c ? el('p', { class: 'wrap' }, 'the kernel of ',
		link(commitHref(c.run, c.position), '#' + c.position + ' ' + short(c.sha) + ' ' +
			(c.subject || '')), ' (run #' + c.run + ')') : null,
	el('p', {}, 'verdict ', verdict(b.verdict),
		b.reason ? ' · ' + b.reason : '', b.duration_ms !== null ?
			' · ' + (b.duration_ms / 1000).toFixed(1) + ' s' : ''),
	el('pre', { class: 'source bootlog' }, b.log ? consoleText(b.log) : '(no log)')),
	...(mods ? [mods] : []));
}

// ---- subsystems ----

async function viewSubsystem(run, name, q) {
	pickRun(run);
	const offset = Number(q.get('offset') || 0);
	const at = q.get('commit') ? '&commit=' + enc(q.get('commit')) : '';
	const triage = q.get('triage') || '';
	const verd = q.get('verdict') || '';
	const tq = (t, v = verd) => (t ? '&triage=' + enc(t) : '') +
		(v ? '&verdict=' + enc(v) : '');
	const res = await api('/api/subsystems/' + enc(name) + '/warnings?run=' + run +
		at + tq(triage) + '&limit=100&offset=' + offset);
	const here = '#/subsystem/' + run + '/' + enc(name);
	show(card(null, el('h2', { class: 'wrap' }, name + ': warnings at commit ' +
		short(res.commit.sha) + ' (#' + res.commit.position + ')'),
	triageFilter(triage, (t) => here + '?offset=0' + at + tq(t)),
	verdictFilter(verd, (v) => here + '?offset=0' + at + tq(triage, v)),
	warningTable(res.warnings, res.commit.sha),
	pager(res, (o) => here + '?offset=' + o + at + tq(triage))));
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
	const t0 = performance.now();
	requests = 0;
	routes++;
	document.body.removeAttribute('data-ready');
	document.title = 'kwarn: warning burn-down';
	for (const a of document.querySelectorAll('header nav a'))
		a.classList.remove('active');
	const nav = { '': 'burndown', run: 'burndown', subsystems: 'over', over: 'over',
		subsystem: 'over', warnings: 'over', diff: 'diff', nightly: 'nightly',
		trees: 'trees' }[part[0]];
	if (nav)
		$('nav-' + nav).classList.add('active');
	try {
		switch (part[0]) {
		case 'commit': await viewCommit(part[1], q); break;
		case 'warning': await viewWarning(part[1], part[2], q); break;
		case 'boot': await viewBoot(part[1]); break;
		case 'subsystems': await viewOver('subsystem', q); break;
		case 'over': await viewOver(OVER[part[1]] ? part[1] : 'subsystem', q); break;
		case 'subsystem': await viewSubsystem(part[1], part.slice(2).join('/'), q); break;
		case 'warnings': await viewWarnings(q); break;
		case 'diff': await viewDiff(q); break;
		case 'nightly': await viewNightly(); break;
		case 'trees': await viewTrees(); break;
		case 'run': await viewRun(part[1], q); break;
		default: await viewRun(null, q);
		}
	} catch (e) {
		show(card('Error', el('p', { class: 'error' }, String(e.message || e))));
	}
	// the view is drawn once the browser has laid it out and painted it:
	// a frame's callbacks run before its layout and paint, so the clock
	// stops at the first task after that frame
	await new Promise((ok) => {
		requestAnimationFrame(() => setTimeout(ok, 0));
		setTimeout(ok, 100); /* a hidden page draws no frame */
	});
	document.body.setAttribute('data-render-ms', (performance.now() - t0).toFixed(1));
	document.body.setAttribute('data-requests', String(requests));
	document.body.setAttribute('data-page-ms', performance.now().toFixed(1));
	document.body.setAttribute('data-ready', '1');
}

async function start() {
	try {
		// whether the server takes triage, asked beside the runs; a
		// server that cannot say is read-only
		const health = api('/api/health').catch(() => null);
		await loadRuns();
		runsRead = 1; /* for the first route */
		$('run').addEventListener('change', () => {
			location.hash = '#/run/' + $('run').value;
		});
		triageWritable = !!((await health) || {}).triage;
	} catch (e) {
		show(card('Error', el('p', { class: 'error' }, String(e.message || e))));
		document.body.setAttribute('data-ready', '1');
		return;
	}
	window.addEventListener('hashchange', route);
	await route();
}

start();
