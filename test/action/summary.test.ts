import { describe, expect, it } from 'vitest';
import { renderMainSummary } from '../../src/action/summary.js';

describe('job summary', () => {
  it('keeps text from the workflow from breaking the table or adding markup', () => {
    const markdown = renderMainSummary({
      mode: 'create',
      outcome: 'created',
      request: { method: 'POST', path: '/v2/annotations', body: { datasets: ['prod'], type: 'deploy' } },
      annotation: {
        id: 'ann_1',
        datasets: ['prod'],
        type: 'deploy',
        time: '2024-05-01T12:00:00.000Z',
        title: 'a | b <script>',
        description: 'line one\nline *two*',
        url: 'javascript:alert(1)',
      },
      span: undefined,
    });

    expect(markdown).toContain('| title | a &#124; b &lt;script&gt; |');
    expect(markdown).toContain('| description | line one<br>line \\*two\\* |');
    expect(markdown).toContain('| url | javascript:alert(1) |');
    expect(markdown).not.toContain('](javascript:');
  });
});
