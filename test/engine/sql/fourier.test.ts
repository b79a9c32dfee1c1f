import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fourier, seriesIir } from '../../../src/engine/sql/udfs.js';

/** The transform by its definition, O(n²): what the FFT must agree with. */
function definition(re: readonly number[], im: readonly number[], sign: 1 | -1): number[] {
  const n = re.length;
  const out = { re: [] as number[], im: [] as number[] };
  for (let k = 0; k < n; k++) {
    let sumRe = 0;
    let sumIm = 0;
    for (let t = 0; t < n; t++) {
      const angle = (sign * 2 * Math.PI * ((k * t) % n)) / n;
      const xr = re[t] as number;
      const xi = im[t] ?? 0;
      sumRe += xr * Math.cos(angle) - xi * Math.sin(angle);
      sumIm += xr * Math.sin(angle) + xi * Math.cos(angle);
    }
    out.re.push(sign === 1 ? sumRe / n : sumRe);
    out.im.push(sign === 1 ? sumIm / n : sumIm);
  }
  return [...out.re, ...out.im];
}

const values = fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 0, maxLength: 70 });

describe('the Fourier transform behind series_fft and series_ifft', () => {
  it('agrees with the definition for every length, powers of two (radix 2) or not (Bluestein)', () => {
    fc.assert(
      fc.property(values, values, fc.constantFrom<1 | -1>(1, -1), (re, im, sign) => {
        const fast = fourier(re, im, sign);
        const slow = definition(re, im, sign);
        expect(fast).toHaveLength(slow.length);
        const scale = Math.max(1, ...slow.map(Math.abs));
        fast.forEach((value, index) => expect(Math.abs(value - (slow[index] as number))).toBeLessThan(1e-9 * scale));
      }),
      { numRuns: 300 },
    );
  });

  it('inverts itself on a long series of a length that is not a power of two', () => {
    const re = Array.from({ length: 86_399 }, (_, t) => Math.sin(t / 7) + (t % 13));
    const forward = fourier(re, [], -1);
    const back = fourier(forward.slice(0, re.length), forward.slice(re.length), 1);
    back.slice(0, re.length).forEach((value, t) => expect(value).toBeCloseTo(re[t] as number, 6));
    back.slice(re.length).forEach((value) => expect(value).toBeCloseTo(0, 6));
  });
});

describe('the IIR filter behind series_iir', () => {
  it('follows its recurrence, an empty series giving an empty one', () => {
    expect(seriesIir([1, 1, 1, 1], [1], [1, -1])).toEqual([1, 2, 3, 4]);
    expect(seriesIir([2, 4, 6], [0.5, 0.5], [1])).toEqual([1, 3, 5]);
    expect(seriesIir([], [1], [1])).toEqual([]);
    expect(seriesIir([1, 0, 0], [1], [2, -1])).toEqual([0.5, 0.25, 0.125]);
  });
});
