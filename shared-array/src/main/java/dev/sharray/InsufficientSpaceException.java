package dev.sharray;

import java.nio.file.Path;

/**
 * The chosen folder cannot hold a new array, thrown by create before anything is left behind; or the folder of an
 * existing file with holes (a sparse file) cannot back them, thrown by an open before the file is mapped, leaving it
 * unchanged.
 */
public class InsufficientSpaceException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** What the user can do, in the messages of the arrays they create themselves. */
    private static final String REMEDY = "choose another folder with SharedArray.builder(...).folder(...) or SHARRAY_TEMP_FOLDER";

    private final transient Path folder;
    private final long requestedBytes;
    private final long freeBytes;
    /** Whether the room that lacked is memory (a tmpfs's), not the folder's file system's. */
    private final boolean memory;

    /**
     * @param folder where the array would have been created
     * @param requestedBytes bytes the array file needs
     * @param freeBytes bytes available there, or -1 if unknown
     */
    public InsufficientSpaceException(Path folder, long requestedBytes, long freeBytes) {
        super("not enough space in " + folder + ": the array needs " + requestedBytes + " bytes, "
            + (freeBytes < 0 ? "the filesystem is full" : freeBytes + " bytes are free") + " (" + REMEDY + ")");
        this.folder = folder;
        this.requestedBytes = requestedBytes;
        this.freeBytes = freeBytes;
        this.memory = false;
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
            + " and swap, or this process's memory cgroup limit, as in a container); " + REMEDY);
        this.folder = folder;
        this.requestedBytes = requestedBytes;
        this.freeBytes = memoryBytes;
        this.memory = true;
    }

    private InsufficientSpaceException(String message, Path folder, long requestedBytes, long freeBytes,
                                       boolean memory) {
        super(message);
        this.folder = folder;
        this.requestedBytes = requestedBytes;
        this.freeBytes = freeBytes;
        this.memory = memory;
    }

    /**
     * The folder's file system has room, but not within this user's disk quota (EDQUOT): to this user, full.
     *
     * @param folder where the array would have been created
     * @param requestedBytes bytes the array file needs
     * @return the exception
     */
    static InsufficientSpaceException pastQuota(Path folder, long requestedBytes) {
        return new InsufficientSpaceException("not enough space in " + folder + " for this user: the array needs "
            + requestedBytes + " bytes, past this user's disk quota (EDQUOT) (" + REMEDY + ")", folder, requestedBytes,
            -1, false);
    }

    /**
     * The same shortage, for an array made on the user's behalf (a pool's copy of a heap argument), where the folder
     * is chosen otherwise: the message says what to change there instead.
     *
     * @param remedy what the user can do, replacing the advice for arrays they create themselves
     * @return the exception with that advice, this one as its cause
     */
    public InsufficientSpaceException withRemedy(String remedy) {
        final InsufficientSpaceException e = new InsufficientSpaceException(getMessage().replace(REMEDY, remedy), folder,
            requestedBytes, freeBytes, memory);
        e.initCause(this);
        return e;
    }

    /**
     * An existing file whose holes its file system cannot back: writes into them would fault (SIGBUS) later.
     *
     * @param file           the file to open
     * @param requestedBytes the bytes its holes need, as {@code bound} says
     * @param bound          "" when {@code requestedBytes} is exact, else "at least " or "up to "
     * @param freeBytes      bytes free in its folder, or of memory left when {@code memory}; -1 if unknown
     * @param memory         whether the folder is a tmpfs with room but the memory its pages would take is not there
     */
    static InsufficientSpaceException toBack(Path file, long requestedBytes, String bound, long freeBytes,
                                             boolean memory) {
        final Path parent = file.getParent();
        final Path folder = parent != null ? parent : file;
        final String need = ": it has holes (blocks never written: a sparse file) that need "
            + bound + requestedBytes + " bytes, ";
        final String why = "; writing into them later would fault (SIGBUS), so it is not opened: free "
            + (memory ? "memory" : "space there") + ", or make the file dense (cp --sparse=never)";
        final String message = memory
            ? "not enough memory for " + folder + " (a tmpfs, whose files are memory) to back " + file + need
                + freeBytes + " bytes of memory are left (the machine's available memory and swap, or this process's"
                + " memory cgroup limit, as in a container)" + why
            : "not enough space in " + folder + " to back " + file + need
                + (freeBytes < 0 ? "the filesystem is full" : freeBytes + " bytes are free") + why;
        return new InsufficientSpaceException(message, folder, requestedBytes, freeBytes, memory);
    }

    /** @return the folder that was too small */
    public Path folder() {
        return folder;
    }

    /** @return bytes requested */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** @return bytes free at the time (of memory, when {@link #isMemoryShortage()}), or -1 if unknown */
    public long freeBytes() {
        return freeBytes;
    }

    /** @return whether what lacked is memory (the folder is a tmpfs, whose files are memory), not file system space */
    public boolean isMemoryShortage() {
        return memory;
    }
}
