import { useState, type DragEvent } from 'react';

/** Drag and drop of files onto an area: highlighted while files hover it. */
export function useFileDrop(onFiles: (files: FileList) => void) {
  const [over, setOver] = useState(false);
  const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');
  return {
    over,
    handlers: {
      onDragEnter: (event: DragEvent) => {
        if (hasFiles(event)) setOver(true);
      },
      onDragOver: (event: DragEvent) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: (event: DragEvent) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
      },
      onDrop: (event: DragEvent) => {
        setOver(false);
        if (!hasFiles(event)) return;
        event.preventDefault();
        onFiles(event.dataTransfer.files);
      },
    },
  };
}
