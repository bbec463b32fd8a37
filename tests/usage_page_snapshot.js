// What the usage page shows, as tests/test_usage_page.py reads it: the text a person sees,
// per field (data-field), and the chart's bars with their heights.
(() => {
  const cells = (tr) => Object.fromEntries([...tr.cells]
    .map((td) => [td.dataset.field, td.textContent]));
  const rows = (id) => [...document.querySelectorAll(`#${id} tbody tr`)].map(cells);
  const totals = (id) => Object.fromEntries([...document.querySelectorAll(`#${id} dd`)]
    .map((dd) => [dd.dataset.field, dd.textContent]));
  const notice = document.getElementById('notice');
  return {
    updated: document.body.dataset.updated || '',
    pwned: document.body.dataset.pwned || '',
    injected: document.querySelectorAll('img, #ua-markup, b').length,
    status: document.getElementById('status').textContent,
    notice: notice.hidden ? '' : notice.textContent,
    today: totals('today'), month: totals('month'),
    by_client: rows('by-client'), by_model: rows('by-model'), recent: rows('recent'),
    tools_hidden: document.getElementById('tools').hidden, by_tool: rows('by-tool'),
    empty: [...document.querySelectorAll('.empty')].map((p) => p.textContent),
    chart_peak: Number((document.querySelector('#chart svg > text') || {}).textContent?.replace(/\D/g, '') || 0),
    days: [...document.querySelectorAll('#chart g.day')].map((g) => ({
      day: g.dataset.day,
      heights: Object.fromEntries([...g.querySelectorAll('rect')]
        .map((r) => [r.getAttribute('class'), Number(r.getAttribute('height'))])),
      title: g.querySelector('title').textContent,
    })),
  };
})()
