import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useApp } from '../state/app-context';
import './chart.css';

/** A colour token of styles/tokens.css a series is drawn in (CONSOLE.md §9). */
export type SeriesColour = 'series-1' | 'series-2';

export interface ChartSeries {
  readonly label: string;
  readonly colour: SeriesColour;
  /** Bars for counts per period, a line for measures over time. */
  readonly kind: 'bars' | 'line';
}

const HEIGHT = 240;
const NARROWEST = 240;

/**
 * A uPlot chart inside a captioned `<figure>` (CONSOLE.md §11): made once,
 * `setData` when the data changes, `setSize` from a ResizeObserver,
 * destroyed on unmount. Its colours are the theme's custom properties, read
 * when it is made, so it is made again when the theme changes. The canvas
 * is hidden from assistive technology: `children` is the same data in a
 * form they read (a summary, a table), inside the figure.
 * CSP: uPlot sizes itself through `element.style` (CSSOM, allowed by
 * `style-src 'self'`), and its stylesheet is a file of the build.
 */
export function Chart({
  caption,
  series,
  data,
  formatValue,
  children,
}: {
  readonly caption: string;
  readonly series: readonly ChartSeries[];
  /** x in Unix seconds (UTC), then one array per series. */
  readonly data: uPlot.AlignedData;
  /** How the y axis writes a value. */
  readonly formatValue: (value: number) => string;
  readonly children?: ComponentChildren;
}) {
  const { theme } = useApp();
  const themeName = theme.effective.value;
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(data);
  latest.current = data;
  const format = useRef(formatValue);
  format.current = formatValue;
  const shape = series.map((one) => `${one.label}:${one.colour}:${one.kind}`).join('|');

  useEffect(() => {
    const element = holder.current;
    if (!element) return undefined;
    const chart = new uPlot(
      options(series, readColours(), element.clientWidth, (value) => format.current(value)),
      latest.current,
      element,
    );
    plot.current = chart;
    const observer = new ResizeObserver((entries) => {
      const width = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (width > 0) chart.setSize({ width: Math.max(NARROWEST, width), height: HEIGHT });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [themeName, shape]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return (
    <figure class="chart">
      <figcaption class="chart__caption">{caption}</figcaption>
      {series.length > 1 ? (
        <ul class="chart__legend" aria-hidden="true">
          {series.map((one) => (
            <li key={one.label}>
              <span class="chart__swatch" data-colour={one.colour} />
              {one.label}
            </li>
          ))}
        </ul>
      ) : null}
      <div class="chart__plot" ref={holder} aria-hidden="true" />
      {children}
    </figure>
  );
}

interface Colours {
  readonly series: Readonly<Record<SeriesColour, string>>;
  readonly axis: string;
  readonly grid: string;
}

function readColours(): Colours {
  const style = getComputedStyle(document.documentElement);
  const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    series: {
      'series-1': token('--chart-series-1', '#1f5fbf'),
      'series-2': token('--chart-series-2', '#b5531a'),
    },
    axis: token('--color-text-muted', '#4e5966'),
    grid: token('--color-border', '#c9d0d8'),
  };
}

function options(
  series: readonly ChartSeries[],
  colours: Colours,
  width: number,
  formatValue: (value: number) => string,
): uPlot.Options {
  const bars = series.some((one) => one.kind === 'bars');
  const axis = {
    stroke: colours.axis,
    grid: { stroke: colours.grid, width: 1 },
    ticks: { stroke: colours.grid, width: 1 },
  };
  return {
    width: Math.max(NARROWEST, width),
    height: HEIGHT,
    // The service's buckets are UTC; the axis says their UTC dates and hours.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    legend: { show: false },
    cursor: { show: false },
    scales: {
      // Bars stand centred on their bucket's start: half a bucket more on each side keeps the
      // first and last whole.
      x: bars
        ? {
            time: true,
            range: (chart, min, max) => {
              const xs = chart.data[0];
              const step = xs.length > 1 ? (xs[1] ?? 0) - (xs[0] ?? 0) : 3600;
              return [min - step / 2, max + step / 2];
            },
          }
        : { time: true },
      y: { range: (_chart, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      axis,
      { ...axis, size: 64, values: (_chart, splits) => splits.map((value) => formatValue(value)) },
    ],
    series: [
      {},
      ...series.map((one) => {
        const colour = colours.series[one.colour];
        return one.kind === 'bars'
          ? {
              label: one.label,
              stroke: colour,
              fill: colour,
              width: 0,
              points: { show: false },
              paths: uPlot.paths.bars?.({ size: [0.6, 48] }),
            }
          : { label: one.label, stroke: colour, width: 2, points: { show: true, size: 5 } };
      }),
    ],
  };
}
