// The app pages' script (progressive enhancement: every page works without it).
// - the chatbot switcher opens the chosen chatbot at once; copy buttons copy their field;
// - day-by-day and live charts are drawn with uPlot from the page's JSON data blocks (the
//   day-by-day one with the previous period dashed when the page compares);
// - the live view refreshes itself every 5 seconds; the Setup tab checks for the tag's first events.
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  var select = document.querySelector('select[data-autosubmit]');
  if (select) select.addEventListener('change', function () { select.form.submit(); });

  // Copy buttons (the Setup tab's tag): copy the field, say so in the status next to it.
  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
    button.addEventListener('click', function () {
      var id = button.getAttribute('data-copy');
      var field = document.getElementById(id);
      var status = document.querySelector('[data-copied="' + id + '"]');
      var done = function () { if (status) status.textContent = 'Copied.'; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, function () { field.select(); document.execCommand('copy'); done(); });
      } else { field.select(); document.execCommand('copy'); done(); }
    });
  });

  function readJson(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }
  function width(el) { return Math.max(280, Math.min(el.clientWidth || 600, 1100)); }
  var COLORS = ['#1d4ed8', '#0f766e', '#b45309', '#7c3aed'];

  var DAY_SERIES = [['Visitors', 'visitors', 'n'], ['Chats started', 'conversations', 'n'], ['Purchases', 'purchases', 'n'], ['Revenue', 'revenue', 'money']];

  // `previous` (compare with the previous period): each series again, dashed, aligned by day
  // index (the previous period's first day under this window's first day). The revenue is in
  // the chatbot's display currency (the element's data-currency), converted by the page.
  // Points of the timeseries API: by UTC day (`date`) or, with data-bucket="hour", by hour (`hour`, ISO).
  function dayChart(el, days, previous) {
    var currency = el.getAttribute('data-currency') || 'EUR';
    var hourly = el.getAttribute('data-bucket') === 'hour';
    var label = function (s) { return s[2] === 'money' ? s[0] + ' (' + currency + ')' : s[0]; };
    var xs = days.map(function (d) { return Date.parse(hourly ? d.hour : d.date + 'T00:00:00Z') / 1000; });
    var series = [{}].concat(DAY_SERIES.map(function (s, i) {
      return { label: label(s), stroke: COLORS[i], width: 2, scale: s[2], points: { show: days.length < 40 } };
    }));
    var data = [xs].concat(DAY_SERIES.map(function (s) { return days.map(function (d) { return d[s[1]]; }); }));
    if (previous) {
      DAY_SERIES.forEach(function (s, i) {
        series.push({ label: label(s) + ', previous period', stroke: COLORS[i], width: 1.5, dash: [6, 4], scale: s[2], points: { show: false } });
        data.push(days.map(function (_d, j) { return j < previous.length ? previous[j][s[1]] : null; }));
      });
    }
    return new uPlot({
      // The legend names the lines; the values are in the table below (a live legend reads "--" until hovered).
      width: width(el), height: 260, series: series, legend: { live: false }, tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      axes: [
        // One tick per day (hour) at most, labelled by date (hour), UTC.
        { space: 56, incrs: hourly ? [3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600] : [86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400], values: function (u, splits) {
          return splits.map(function (s) { return new Date(s * 1000).toISOString().slice(hourly ? 11 : 5, hourly ? 16 : 10); });
        } },
        { scale: 'n', label: 'Count' }, { scale: 'money', side: 1, label: currency, grid: { show: false } },
      ],
      scales: { x: { time: true } },
    }, data, el);
  }

  function liveData(minutes) {
    return [minutes.map(function (m) { return Date.parse(m.minute.replace(' ', 'T')) / 1000; }), minutes.map(function (m) { return m.events; })];
  }
  function liveChart(el, minutes) {
    return new uPlot({
      width: width(el), height: 240, tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      series: [{}, { label: 'Events per minute', stroke: COLORS[0], fill: 'rgba(29,78,216,0.15)', width: 2 }],
      scales: { x: { time: true } },
    }, liveData(minutes), el);
  }

  // The Setup tab's install check: whether the tag has sent anything in the last 30 minutes
  // (the live view's statistic, bots left out), asked every 5 seconds until it has.
  var check = document.querySelector('[data-install-check]');
  if (check) {
    var ask = function () {
      fetch(check.getAttribute('data-install-check'), { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
        .then(function (body) {
          var seen = body.minutes.filter(function (m) { return m.events > 0; });
          if (seen.length) {
            check.textContent = '\u2713 Events received: the latest in the minute of ' + seen[seen.length - 1].minute.slice(11, 16) + ' UTC. The tag works.';
            check.setAttribute('data-installed', 'true');
            clearInterval(timer);
          } else {
            check.textContent = 'Waiting for the first event (checked every 5 seconds): open a page of the shop that has the tag.';
            check.setAttribute('data-installed', 'false');
          }
        })
        .catch(function () { check.textContent = 'Could not check for events; retrying.'; });
    };
    var timer = setInterval(ask, 5000);
    ask();
  }

  if (typeof uPlot === 'undefined') return;
  var charts = [];
  var seriesEl = document.querySelector('[data-series="timeseries"]');
  var days = readJson('timeseries-data');
  if (seriesEl && days && days.length) charts.push([seriesEl, dayChart(seriesEl, days, readJson('timeseries-previous-data'))]);

  var liveEl = document.querySelector('[data-live]');
  var minutes = readJson('live-data');
  if (liveEl && minutes) {
    var live = liveChart(liveEl, minutes);
    charts.push([liveEl, live]);
    var total = document.getElementById('live-total');
    var updated = document.getElementById('live-updated');
    var bots = document.getElementById('live-bots');
    var refresh = function () {
      fetch(liveEl.getAttribute('data-live'), { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
        .then(function (body) {
          live.setData(liveData(body.minutes));
          total.textContent = body.minutes.reduce(function (s, m) { return s + m.events; }, 0).toLocaleString('en');
          updated.textContent = new Date().toISOString().slice(11, 19) + ' UTC';
          // The same sentence as the page's (list-views.ts botNote), shown while there are bot requests.
          if (bots && typeof body.bot_requests === 'number') {
            var n = body.bot_requests;
            bots.setAttribute('data-bot-requests', String(n));
            bots.textContent = n.toLocaleString('en') + (n === 1 ? ' request' : ' requests') + ' in the last 30 minutes came from bots or scripts (e.g. a Node.js test) and ' + (n === 1 ? 'is' : 'are') + ' not counted.';
            bots.hidden = n === 0;
          }
          liveEl.setAttribute('data-refreshed', String(Date.now()));
        })
        .catch(function () { updated.textContent = 'refresh failed, retrying'; });
    };
    setInterval(refresh, 5000);
  }

  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c[1].setSize({ width: width(c[0]), height: c[1].height }); });
  });
})();
