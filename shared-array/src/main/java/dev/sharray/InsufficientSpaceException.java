package dev.sharray;

import java.nio.file.Path;

/** The chosen folder cannot hold a new array; thrown by create before anything is left behind. */
public class InsufficientSpaceException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final transient Path folder;
    private final long requestedBytes;
    private final long freeBytes;

    /**
     * @param folder where the array would have been created
     * @param requestedBytes bytes the array file needs
     * @param freeBytes bytes available there, or -1 if unknown
     */
    public InsufficientSpaceException(Path folder, long requestedBytes, long freeBytes) {
        super("not enough space in " + folder + ": the array needs " + requestedBytes + " bytes, "
            + (freeBytes < 0 ? "the filesystem is full" : freeBytes + " bytes are free")
            + " (choose another folder with SharedArray.builder(...).folder(...) or SHARRAY_TEMP_FOLDER)");
        this.folder = folder;
        this.requestedBytes = requestedBytes;
        this.freeBytes = freeBytes;
    }

    /** @return the folder that was too small */
    public Path folder() {
        return folder;
    }

    /** @return bytes requested */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** @return bytes free at the time, or -1 if unknown */
    public long freeBytes() {
        return freeBytes;
    }
}
