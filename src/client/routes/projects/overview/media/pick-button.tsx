import { useRef } from 'react';

/** A button opening the system's file picker (the input itself stays hidden). */
export function PickButton({ label, multiple, onFiles, pick }: { label: string; multiple: boolean; onFiles: (files: FileList) => void; pick: 'cover' | 'screenshots' }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="button" data-pick={pick} onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={input}
        type="file"
        accept="image/*"
        multiple={multiple}
        hidden
        tabIndex={-1}
        aria-hidden="true"
        data-testid={`project-media-${pick}-input`}
        onChange={(event) => {
          const files = event.currentTarget.files;
          if (files && files.length > 0) onFiles(files);
          event.currentTarget.value = '';
        }}
      />
    </>
  );
}
