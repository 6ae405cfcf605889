import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export type RowMenuItem = {
  key: string;
  label: ReactNode;
  onSelect: () => void;
  /** Shown in the danger colour (Remove, Uninstall). */
  danger?: boolean;
  disabled?: boolean;
  /** A state that toggles (menuitemcheckbox), such as 'Executable'. */
  checked?: boolean;
};

type RowMenuProps = {
  /** The button's accessible name, naming the row: 'Actions for game.exe'. */
  label: string;
  items: RowMenuItem[];
  /** Roving tab stop of a grid (only the active row's controls are in the tab order). */
  tabIndex?: number;
  className?: string;
};

/** Gap between the button and the menu, and the least distance kept from the viewport's edges (px). */
const GAP = 4;
const MARGIN = 8;

/**
 * One compact menu button per row instead of a row of buttons (WAI-ARIA menu button): the button has
 * aria-haspopup and aria-expanded; Enter, Space or ArrowDown open the menu on its first item, ArrowUp on
 * its last; in the menu the arrow keys, Home and End move, a letter jumps to the next item starting with
 * it, Enter or Space choose, Escape and Tab close it and give focus back to the button. A click or a
 * scroll outside closes it. The menu is fixed to the viewport next to the button (the inline end edges
 * aligned, above the button when there is no room below), so a scrolling table or a dialog does not clip
 * it; Escape does not reach a surrounding dialog.
 */
export function RowMenu({ label, items, tabIndex, className }: RowMenuProps) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const checkable = items.some((item) => item.checked !== undefined);
  const enabled = items.map((item, index) => (item.disabled ? -1 : index)).filter((index) => index >= 0);

  const openAt = (index: number | undefined) => {
    if (index === undefined) return;
    setActive(index);
    setOpen(true);
  };
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) buttonRef.current?.focus();
  };

  // Placed before paint, then the active item takes focus.
  useLayoutEffect(() => {
    const button = buttonRef.current;
    const menu = menuRef.current;
    if (!open || !button || !menu) return;
    const rect = button.getBoundingClientRect();
    const rtl = getComputedStyle(button).direction === 'rtl';
    const width = menu.offsetWidth;
    const height = menu.offsetHeight;
    const left = Math.max(MARGIN, Math.min(rtl ? rect.left : rect.right - width, window.innerWidth - width - MARGIN));
    const below = rect.bottom + GAP;
    const top = below + height > window.innerHeight - MARGIN && rect.top - GAP - height >= MARGIN ? rect.top - GAP - height : below;
    menu.style.left = `${left}px`;
    menu.style.top = `${top}px`;
    menu.querySelectorAll<HTMLElement>('[role^="menuitem"]')[active]?.focus();
  }, [open, active]);

  useEffect(() => {
    if (!open) return;
    const outside = (event: Event) => {
      const target = event.target as Node | null;
      if (target && (menuRef.current?.contains(target) || buttonRef.current?.contains(target))) return;
      close(false);
    };
    const dismiss = () => close(false);
    document.addEventListener('pointerdown', outside, true);
    document.addEventListener('scroll', outside, true);
    window.addEventListener('resize', dismiss);
    return () => {
      document.removeEventListener('pointerdown', outside, true);
      document.removeEventListener('scroll', outside, true);
      window.removeEventListener('resize', dismiss);
    };
  }, [open]);

  const onButtonKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      event.stopPropagation();
      openAt(event.key === 'ArrowDown' ? enabled[0] : enabled[enabled.length - 1]);
    }
  };

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const position = enabled.indexOf(active);
    const moveTo = (index: number | undefined) => {
      if (index !== undefined) setActive(index);
    };
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(enabled[(position + 1) % enabled.length]),
      ArrowUp: () => moveTo(enabled[(position - 1 + enabled.length) % enabled.length]),
      Home: () => moveTo(enabled[0]),
      End: () => moveTo(enabled[enabled.length - 1]),
      Escape: () => close(true),
      Tab: () => close(true),
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      // Escape must not also cancel a dialog around the row; the arrows must not move a grid's rows.
      event.stopPropagation();
      action();
      return;
    }
    if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      const letter = event.key.toLocaleLowerCase();
      const texts = [...(menuRef.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? [])].map((element) => element.textContent?.trim().toLocaleLowerCase() ?? '');
      const order = [...enabled.slice(position + 1), ...enabled.slice(0, position + 1)];
      const next = order.find((index) => texts[index]?.startsWith(letter));
      if (next !== undefined) {
        event.preventDefault();
        setActive(next);
      }
    }
  };

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className={className ? `row_menu_button ${className}` : 'row_menu_button'}
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        tabIndex={tabIndex}
        onClick={() => (open ? close(true) : openAt(enabled[0]))}
        onKeyDown={onButtonKeyDown}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
          <path d="M6 12h.01M12 12h.01M18 12h.01" />
        </svg>
      </button>
      {open ? (
        <div ref={menuRef} id={menuId} className="row_menu" role="menu" aria-label={label} onKeyDown={onMenuKeyDown}>
          {items.map((item, index) => (
            <button
              key={item.key}
              type="button"
              role={item.checked === undefined ? 'menuitem' : 'menuitemcheckbox'}
              aria-checked={item.checked}
              className={item.danger ? 'row_menu_item row_menu_item_danger' : 'row_menu_item'}
              tabIndex={index === active ? 0 : -1}
              disabled={item.disabled}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
            >
              {checkable ? (
                <span className="row_menu_check" aria-hidden="true">
                  {item.checked ? '✓' : ''}
                </span>
              ) : null}
              {item.label}
            </button>
          ))}
        </div>
      ) : null}
    </>
  );
}
