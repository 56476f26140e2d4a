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

    /**
     * The folder is a tmpfs with room, but the memory its pages would take is not there: preallocating the file would
     * have the kernel's OOM killer end a process rather than fail.
     *
     * @param folder where the array would have been created
     * @param requestedBytes bytes the array file needs
     * @param memoryBytes bytes of memory left (the machine's, or this process's memory cgroup's)
     * @param fsType the folder's file system type
     */
    InsufficientSpaceException(Path folder, long requestedBytes, long memoryBytes, String fsType) {
        super("not enough memory for " + folder + " (a " + fsType + ", whose files are memory): the array needs "
            + requestedBytes + " bytes, " + memoryBytes + " bytes of memory are left (the machine's available memory"
            + " and swap, or this process's memory cgroup limit, as in a container); choose another folder with"
            + " SharedArray.builder(...).folder(...) or SHARRAY_TEMP_FOLDER");
        this.folder = folder;
        this.requestedBytes = requestedBytes;
        this.freeBytes = memoryBytes;
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
