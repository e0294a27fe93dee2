import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A real one-page PDF written by pdf-lib: each line a paragraph of its own (40 points apart), as an upload or a connector's file would be. */
export async function pdfOf(lines: readonly string[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([612, 792]);
  lines.forEach((text, index) => {
    page.drawText(text, { x: 72, y: 720 - index * 40, size: 12, font });
  });
  return Buffer.from(await pdf.save());
}
