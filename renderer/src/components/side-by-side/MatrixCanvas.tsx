/** A downsampled |Δ| map on a canvas, on a shared 0..max scale so before/after compare directly. */
import { useEffect, useRef } from 'react';
import { colorAt } from '../../lib/color-scale.ts';
import type { Matrix } from '../../protocol.ts';

export function MatrixCanvas({ matrix, label, max, size = 150 }: { matrix: Matrix; label: string; max: number; size?: number }) {
  const ref = useRef<HTMLCanvasElement | null>(null);
  useEffect(() => {
    const canvas = ref.current;
    const ctx = canvas?.getContext('2d') ?? null;
    if (canvas === null || ctx === null || matrix.rows === 0 || matrix.cols === 0) return;
    canvas.width = matrix.cols;
    canvas.height = matrix.rows;
    const image = ctx.createImageData(matrix.cols, matrix.rows);
    const scale = { kind: 'sequential', min: 0, max } as const;
    for (let i = 0; i < matrix.values.length; i++) {
      const [r, g, b] = colorAt(scale, matrix.values[i] ?? 0);
      image.data.set([r, g, b, 255], i * 4);
    }
    ctx.putImageData(image, 0, 0);
  }, [matrix, max]);
  const aspect = matrix.cols === 0 ? 1 : matrix.rows / matrix.cols;
  return <canvas ref={ref} className="matrix-canvas" role="img" aria-label={label} style={{ width: size, height: Math.round(size * aspect) }} />;
}
