/** The part of uPlot (the charting library, loaded by its own script tag as the global `uPlot`) the Insights page uses. */
declare const uPlot:
  | undefined
  | {
      new (opts: Record<string, unknown>, data: number[][], target: HTMLElement): { destroy(): void };
      paths: { bars?: (opts: { size: [number, number?]; align?: number }) => unknown };
    };
