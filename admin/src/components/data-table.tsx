import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** A column heading: shown, or read to screen readers only (a column of action buttons). */
export type Heading = string | { readonly hidden: string };

/**
 * A table of records in its scrolling frame, the same on every page: a caption (read to
 * screen readers only, unless `showCaption`), one row of column headings, then the rows the
 * caller renders (a row's first cell is its `th scope="row"` where a name identifies it), and
 * an optional `footer` row (a total). While the table is wider than its frame (a phone), the
 * frame is a named region in the tab order, so the keyboard can scroll it too.
 */
export function DataTable(props: { caption: string; showCaption?: boolean; headings: readonly Heading[]; children: ComponentChildren; footer?: ComponentChildren }) {
  const frame = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  const captionId = useId();
  useEffect(() => {
    const element = frame.current;
    if (!element || typeof ResizeObserver === 'undefined') return undefined;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth);
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    measure();
    return () => observer.disconnect();
  }, []);
  return (
    <div class="table-wrap" ref={frame} {...(scrolls ? { tabIndex: 0, role: 'region', 'aria-labelledby': captionId } : {})}>
      <table>
        <caption id={captionId} class={props.showCaption ? undefined : 'visually-hidden'}>
          {props.caption}
        </caption>
        <thead>
          <tr>
            {props.headings.map((heading) =>
              typeof heading === 'string' ? (
                <th key={heading} scope="col">
                  {heading}
                </th>
              ) : (
                <th key={heading.hidden} scope="col">
                  <span class="visually-hidden">{heading.hidden}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
        {props.footer ? <tfoot>{props.footer}</tfoot> : null}
      </table>
    </div>
  );
}
