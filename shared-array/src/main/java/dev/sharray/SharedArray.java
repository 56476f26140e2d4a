package dev.sharray;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.agrona.UnsafeApi;

/**
 * An n-dimensional array in a memory-mapped file that other processes can map too. The file is a valid
 * NumPy {@code .npy} file; {@link #descriptor()} describes this view in ~100 bytes, and
 * {@link #open(Descriptor)} maps exactly this view in any JVM on the host, without copying.
 *
 * <p>Every handle (the array, each view, each {@link #retain()}) holds one reference and must be
 * {@link #release() released} (try-with-resources does it). The file is deleted when the last reference
 * in any process is released; a crashed holder's references are reclaimed. Nothing is freed behind your
 * back: an unreleased handle is reported as a leak and its memory stays mapped until process exit.
 *
 * <p>Handles are not thread-safe for release: do not release a handle while another thread uses it; give
 * that thread its own handle with {@link #retain()}. Such a race cannot crash the JVM or reach another array:
 * an access that began before the release fails with {@link InternalError} (on JDK 17 at that thread's next
 * safepoint, its reads until then unspecified), a later one with {@link IllegalStateException}. See
 * {@code docs/lifecycle.md}.
 *
 * <p>Copies between a whole heap array and a dense view ({@code copyFrom}, {@code copyTo}, {@code toDoubleArray}
 * and the like) and {@link #prefault()}, of 64 MiB or more, lend the work to the common
 * {@link java.util.concurrent.ForkJoinPool}'s idle threads too (one thread does not reach the memory's
 * speed); a busy common pool leaves it to the calling thread.
 *
 * <p>Creating and opening arrays are not interruptible (they are short and wait for no one): on an interrupted
 * thread they succeed, and the thread's interrupt is still set afterwards.
 */
public final class SharedArray extends NdArray implements AutoCloseable {
    /** Test hook: runs in {@link #open} once a descriptor's path is resolved, before the file is checked and mapped. */
    static volatile java.util.function.Consumer<Path> afterResolve;
    private static final VarHandle RELEASED;
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final long PAGE = 4096;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(SharedArray.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Segment segment;
    private final long[] strides;
    private final long offset;
    private final long address;
    private final LeakDetector.Tracker tracker;
    /** 1-D with stride 8: the address of element i is {@code address + (i << 3)}, a form C2 can vectorise. */
    private final boolean dense8;
    /** Set once by release() through RELEASED (CAS); read plainly on the access path. */
    private boolean released;

    /** Wraps a view; the caller has already taken the reference this handle owns. */
    private SharedArray(Segment segment, DType dtype, long[] shape, long[] strides, long offset) {
        super(dtype, shape);
        this.segment = segment;
        this.strides = strides;
        this.offset = offset;
        this.address = segment.mapping.address() + offset;
        this.dense8 = shape.length == 1 && strides[0] == 8;
        this.tracker = LeakDetector.track(this);
    }

    // ---- creation ----

    /**
     * Creates a zero-filled array in this process's temp folder.
     *
     * @param dtype element type
     * @param shape dimensions (row-major)
     * @return the array; release it when done
     * @throws IllegalArgumentException when a dimension is negative, there are too many, or the byte size of the
     *     non-zero dimensions overflows 2^63, as NumPy counts it: an empty {@code (2^62, 0)} of FLOAT64 too (no file is
     *     created)
     * @throws InsufficientSpaceException when the folder cannot hold it
     * @throws MapLimitException when this process has nearly as many memory mappings as the kernel allows
     * @throws UncheckedIOException when the folder cannot be made (its root is a file, say) or the files
     *     cannot be written
     */
    public static SharedArray create(DType dtype, long... shape) {
        return builder(dtype, shape).create();
    }

    /**
     * Options for a new array: backing and folder.
     *
     * @param dtype element type
     * @param shape dimensions
     * @return a builder
     */
    public static Builder builder(DType dtype, long... shape) {
        return new Builder(dtype, shape);
    }

    /**
     * @param data values to copy
     * @return a new 1-D FLOAT64 shared array holding a copy
     */
    public static SharedArray copyOf(double[] data) {
        return filled(DType.FLOAT64, data, data.length);
    }

    /**
     * @param data values to copy
     * @return a new 1-D FLOAT32 shared array holding a copy
     */
    public static SharedArray copyOf(float[] data) {
        return filled(DType.FLOAT32, data, data.length);
    }

    /**
     * @param data values to copy
     * @return a new 1-D INT64 shared array holding a copy
     */
    public static SharedArray copyOf(long[] data) {
        return filled(DType.INT64, data, data.length);
    }

    /**
     * @param data values to copy
     * @return a new 1-D INT32 shared array holding a copy
     */
    public static SharedArray copyOf(int[] data) {
        return filled(DType.INT32, data, data.length);
    }

    /**
     * @param data values to copy
     * @return a new 1-D INT16 shared array holding a copy
     */
    public static SharedArray copyOf(short[] data) {
        return filled(DType.INT16, data, data.length);
    }

    /**
     * @param data values to copy
     * @return a new 1-D INT8 shared array holding a copy
     */
    public static SharedArray copyOf(byte[] data) {
        return filled(DType.INT8, data, data.length);
    }

    /**
     * @param rows a rectangular matrix
     * @return a new 2-D FLOAT64 shared array (rows, columns) holding a copy
     */
    public static SharedArray copyOf(double[][] rows) {
        int cols = rows.length == 0 ? 0 : rows[0].length;
        for (int r = 0; r < rows.length; r++) {
            if (rows[r].length != cols) {
                throw new IllegalArgumentException("row " + r + " has " + rows[r].length + " columns, row 0 has " + cols);
            }
        }
        SharedArray a = create(DType.FLOAT64, rows.length, cols);
        try {
            for (int r = 0; r < rows.length; r++) {
                UnsafeApi.copyMemory(rows[r], UnsafeApi.arrayBaseOffset(double[].class), null,
                    a.address + (long) r * cols * 8, (long) cols * 8);
            }
            return a;
        } catch (RuntimeException e) {
            a.release();
            throw e;
        }
    }

    private static SharedArray filled(DType dtype, Object data, long length) {
        return filled(dtype, new long[] {length}, data, null);
    }

    /**
     * A new array (under {@code folder}, or the default one when null) holding a copy of {@code data}, a
     * primitive array of {@code dtype}'s Java type with as many elements as {@code shape} has.
     */
    static SharedArray filled(DType dtype, long[] shape, Object data, Path folder) {
        SharedArray a = builder(dtype, shape).folder(folder).create();
        try {
            a.copyRawFrom(data);
            return a;
        } catch (RuntimeException e) {
            a.release();
            throw e;
        }
    }

    /**
     * Maps the view a descriptor describes (made by {@link #descriptor()} in this or another process) and
     * takes a reference on it in this process.
     *
     * @param descriptor the view to open
     * @return a handle on exactly that view; release it when done
     * @throws InvalidDescriptorException when the descriptor does not fit the file, or names a file neither in a
     *     sharray folder of this user nor in an {@linkplain SharedArrays#allowFolder allowed folder}, or an array of
     *     a process in another pid namespace (another container sharing the folder): holders are named by pid
     * @throws IllegalStateException when the array has already been released by all its holders
     * @throws MapLimitException when this process has nearly as many memory mappings as the kernel allows
     * @throws InsufficientSpaceException when a user's file (shared with {@link #openNpy}) has holes that its file
     *     system, or for a tmpfs the memory left, cannot back: a write there would fault later; the file is left
     *     unchanged (sharray's own array files are preallocated at create)
     */
    public static SharedArray open(Descriptor descriptor) {
        Objects.requireNonNull(descriptor, "descriptor");
        return InterruptsSetAside.call(() -> openNow(descriptor));
    }

    private static SharedArray openNow(Descriptor descriptor) {
        Reaper.onFirstUse();
        Segment seg = Segments.reuseMappedArray(descriptor.path());
        if (seg == null) {
            final Path real = realDescriptorPath(descriptor.path());
            final java.util.function.Consumer<Path> hook = afterResolve;
            if (hook != null) {
                hook.accept(real);
            }
            boolean sharrayFile = TempFolders.isSharrayDataFile(real);
            final boolean allowed = SharedArrays.isAllowedFolder(real);
            if (!sharrayFile && !allowed) {
                throw notInAFolder(real);
            }
            if (!allowed) {
                TempFolders.requireOwnUserFolder(real);
            } else {
                sharrayFile = TempFolders.isOwnArrayFile(real);
                if (!sharrayFile) {
                    SharedArrays.requireOthersCannotReplace(real);
                }
            }
            requireRegularFile(real); // a directory or a FIFO would fail later with a bare I/O error, or block
            seg = openSegment(real, sharrayFile);
        }
        try {
            checkFits(descriptor, seg.header);
        } catch (RuntimeException e) {
            Segments.release(seg);
            throw e;
        }
        return new SharedArray(seg, descriptor.dtype(), descriptor.shape(), descriptor.strides(), descriptor.offset());
    }

    /**
     * Maps a {@code .npy} file (written by NumPy, C or Fortran order, or by sharray) in place. A user's own
     * file is never deleted by sharray; a sharray array file is reference-counted as usual. A file with holes (made
     * with {@code truncate} or NumPy's {@code open_memmap}, say) has them allocated first, as {@code create}
     * preallocates, without changing a byte: a full file system then refuses here, not with a fault at a later write.
     *
     * @param file the {@code .npy} file
     * @return a handle on the whole array; release it when done
     * @throws InvalidDescriptorException when the header is malformed or the file too short (the message names the
     *     file, then the header's field: {@code /data/a.npy: descr: unsupported NumPy dtype ...}), or it is the array
     *     of a process in another pid namespace (another container sharing the folder): holders are named by pid
     * @throws UncheckedIOException when there is no such file, or it cannot be read
     * @throws IllegalStateException when it is a sharray array's file, and that array has been released by all its
     *     holders
     * @throws InsufficientSpaceException when the file has holes that its file system, or for a tmpfs the memory
     *     left, cannot back; the file is left unchanged
     */
    public static SharedArray openNpy(Path file) {
        Objects.requireNonNull(file, "file");
        return InterruptsSetAside.call(() -> openNpyNow(file));
    }

    private static SharedArray openNpyNow(Path file) {
        Path real = realPath(file.toAbsolutePath());
        requireRegularFile(real);
        Segment seg = openSegment(real, TempFolders.isOwnArrayFile(real));
        NpyHeader h = seg.header;
        return new SharedArray(seg, h.dtype, h.shape.clone(), h.strides(), h.dataOffset);
    }

    /**
     * Refuses a path that is not a regular file. A file that is gone since its path resolved is {@link #missing}: an
     * array's file was deleted meanwhile by the last holder of its array (in any process), not a malformed
     * descriptor.
     */
    private static void requireRegularFile(Path real) {
        boolean regular;
        try {
            regular = Files.readAttributes(real, java.nio.file.attribute.BasicFileAttributes.class).isRegularFile();
        } catch (NoSuchFileException e) {
            throw missing(real, e);
        } catch (IOException e) {
            regular = false;
        }
        if (!regular) {
            throw new InvalidDescriptorException("path", real + " is not a regular file");
        }
    }

    /**
     * A file that is not there: where an array's file could be, its array was released by all its holders (deleted
     * by the last); anywhere else it is a user's path that names no file.
     */
    private static RuntimeException missing(Path p, NoSuchFileException e) {
        if (TempFolders.isSharrayDataFile(p.normalize())) {
            return Segments.released(p);
        }
        return new UncheckedIOException("no such file: " + p, e);
    }

    private static Segment openSegment(Path real, boolean sharrayFile) {
        final Segment open = Segments.reuseOpen(real);
        if (open != null) {
            return open; // the common case in a worker: no file system calls
        }
        // one stat tells whether it is a shared array and which reference file it has: a mapping of that very file
        // kept since this process's last release is taken back
        final Object refKey = sharrayFile ? Segments.referenceFileKey(real) : null;
        if (refKey != null) {
            TempFolders.requireSamePidNamespace(real);
        }
        return refKey != null ? Segments.openShared(real, refKey) : Segments.openExternal(real);
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (NoSuchFileException e) {
            throw missing(p, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + p + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return whether no file can have this path, whatever happens to the file system's folders meanwhile: a name
     *     longer than a file name can be, or a folder on the way that is a file or a link loop ("Not a directory",
     *     "File name too long", "Too many levels of symbolic links": not the I/O errors an open may retry)
     */
    private static boolean namesNoFile(Path p) {
        for (Path name : p) {
            if (name.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
                return true;
            }
        }
        for (Path folder = p.getParent(); folder != null; folder = folder.getParent()) {
            if (Files.exists(folder) ? !Files.isDirectory(folder) : Files.isSymbolicLink(folder)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A descriptor's path, resolved. A missing file is an array released by all its holders only where an array
     * could be; any other path that does not resolve is refused as outside the folders, as one that does.
     */
    private static Path realDescriptorPath(Path p) {
        try {
            return p.toRealPath();
        } catch (NoSuchFileException e) {
            final Path lexical = p.normalize();
            if (TempFolders.isSharrayDataFile(lexical) && namesNoFile(lexical)) {
                throw new InvalidDescriptorException("path", p + " names no array file: " + e.getMessage());
            }
            if (TempFolders.isSharrayDataFile(lexical) || SharedArrays.isAllowedFolder(lexical)) {
                throw Segments.released(p);
            }
            throw notInAFolder(lexical);
        } catch (IOException e) {
            final Path lexical = p.normalize();
            if (e instanceof AccessDeniedException
                && (TempFolders.isSharrayDataFile(lexical) || SharedArrays.isAllowedFolder(lexical))) {
                // another user's folder (allowed here, or a sharray folder whose mode was changed): say so, not
                // that the path is outside the allowed folders, nor the bare path that is the exception's message
                throw new UncheckedIOException("cannot open " + p + ": permission denied on a folder on its path"
                    + " (another user's?)", e);
            }
            if (TempFolders.isSharrayDataFile(lexical)) {
                if (!p.equals(lexical) || Files.isSymbolicLink(lexical) || namesNoFile(lexical)) {
                    // sharray names its files by their real paths and never links them: "<array>.npy/." (not a
                    // directory) or a link loop under an array's name names no array, whatever the I/O said
                    throw new InvalidDescriptorException("path", p + " names no array file: " + e.getMessage());
                }
                throw new UncheckedIOException("cannot resolve " + p + ": " + e.getMessage(), e);
            }
            throw notInAFolder(lexical); // e.g. "Not a directory": a path no array can have
        }
    }

    private static InvalidDescriptorException notInAFolder(Path path) {
        return new InvalidDescriptorException("path", path + " is not in a sharray folder "
            + "(.../" + TempFolders.userFolderName() + "/<owner>/<name>.npy) or an allowed folder: each process that opens"
            + " it must allow its folder (SharedArrays.allowFolder, -Dsharray.allowedFolders or SHARRAY_ALLOWED_FOLDERS;"
            + " a pool's workers allow what their parent allowed when the pool was built)");
    }

    /**
     * The view must lie inside the file's data, each of its elements on a boundary of the view's element size from the
     * data's start. The view's dtype may differ from the file's: a {@link #viewAs} view reads the same bytes as another
     * dtype (a FLOAT64 view of a UINT8 file's rows, say), and its descriptor must open in another JVM too.
     */
    private static void checkFits(Descriptor d, NpyHeader h) {
        int item = d.dtype().byteSize();
        long dataEnd = h.dataOffset + h.dataBytes();
        if ((d.offset() - h.dataOffset) % item != 0) {
            throw new InvalidDescriptorException("offset", d.offset() + " is not on an element boundary of the data at "
                + h.dataOffset + " (a multiple of " + item + " bytes from it, for " + d.dtype() + ")");
        }
        long[] strides = d.strides();
        int axis = Shapes.misalignedAxis(d.shape(), strides, item);
        if (axis >= 0) {
            throw new InvalidDescriptorException("strides", "stride " + strides[axis] + " of axis " + axis
                + " is not a multiple of the element size " + item + " of " + d.dtype());
        }
        long[] span = Shapes.span(d.shape(), strides, d.dtype());
        long lo = span == null ? d.offset() : d.offset() + span[0];
        long hi = span == null ? d.offset() : d.offset() + span[1];
        if (lo < h.dataOffset || hi > dataEnd) {
            throw new InvalidDescriptorException("offset", "the view covers bytes [" + lo + ", " + hi
                + ") but the data of " + d.path() + " is [" + h.dataOffset + ", " + dataEnd + ")");
        }
    }

    // ---- identity and geometry ----

    /** @return the descriptor of this view, to open it in another process */
    public Descriptor descriptor() {
        checkAccessible();
        return new Descriptor(segment.dataPath, offset, shape, strides, dtype, ByteOrder.LITTLE_ENDIAN);
    }

    /** @return signed byte strides per axis (a copy) */
    public long[] strides() {
        return strides.clone();
    }

    /** @return true when the view is dense and row-major (C order); every empty view is, as NumPy says too */
    public boolean isContiguous() {
        return Shapes.isCContiguous(shape, strides, dtype.byteSize());
    }

    /** @return the backing {@code .npy} file */
    public Path path() {
        return segment.dataPath;
    }

    /**
     * @return byte offset of the first element of this view in the file; an empty view, which has none, keeps the
     *     offset of the view it was made from (always inside the data, so its descriptor reopens)
     */
    public long offset() {
        return offset;
    }

    /** @return which backing maps the file in this process */
    public Backing backing() {
        return segment.mapping.backing();
    }

    /**
     * Native address of the first element of this view, for zero-copy native code (JNA). Valid until this
     * handle is released; what lies outside the view's extent is not yours.
     *
     * @return the address
     */
    public long address() {
        checkAccessible();
        return address;
    }

    /**
     * Faults in, writable, the memory pages behind this view in one system call (Linux 5.14+
     * {@code madvise(MADV_POPULATE_WRITE)}), instead of one page fault per 4 KiB page on first touch: call
     * it before filling a freshly created array in bulk, or at the start of a task that works through a
     * chunk of an array this process has not touched yet. A non-contiguous view populates the span from its
     * lowest to its highest element. This process remembers, per mapping, the 64 KiB blocks it has populated,
     * so calling it again on the same memory costs next to nothing. Does not change the contents. Where the
     * call is unavailable (older kernel, another OS) it does nothing, and pages are faulted on first touch as
     * usual.
     *
     * @return whether the pages were populated
     * @throws IllegalStateException when this handle was released
     */
    public boolean prefault() {
        checkAccessible();
        final long[] span = Shapes.span(shape, strides, dtype);
        if (span == null) {
            return true; // no elements
        }
        final long base = segment.mapping.address();
        final long from = offset + span[0];
        final long to = offset + span[1];
        final PopulatedBlocks blocks = segment.populated();
        final PopulatedBlocks.Populator populator = (at, length) -> Posix.populateWrite(base + at, length);
        if (blocks.unrecordedBytes(from, to) < ParallelChunks.MIN_BYTES) {
            // little left to populate (a repeat call on a big array): no helper threads for a scan of the record
            return blocks.populate(from, to, populator);
        }
        final AtomicBoolean populated = new AtomicBoolean(true);
        // chunks of whole blocks, so each block is recorded by the one chunk that covers it
        final long alignedFrom = from & -PopulatedBlocks.BLOCK;
        onHelperThreads(() -> ParallelChunks.run(to - alignedFrom, 1024 * PopulatedBlocks.BLOCK, (chunkAt, n) -> {
            if (!blocks.populate(Math.max(from, alignedFrom + chunkAt), alignedFrom + chunkAt + n, populator)) {
                populated.set(false);
            }
        }));
        return populated.get();
    }

    /** @return bytes of this array's mapping that this process recorded as populated by {@link #prefault()} (for tests) */
    long populatedBytes() {
        return segment.populated().populatedBytes();
    }

    /** @return true once {@link #release()} was called on this handle */
    public boolean isReleased() {
        return (boolean) RELEASED.getVolatile(this);
    }

    // ---- views: each holds its own reference ----

    /**
     * A view of every {@code step}-th index from {@code start} towards {@code stop} (exclusive) along
     * {@code axis}. Negative steps walk backwards: {@code slice(0, n - 1, -1, -1)} reverses an axis of
     * length n. Indices do not wrap around: {@code start} must be in [0, n) for a non-empty slice and
     * {@code stop} is clamped to [-1, n].
     *
     * @param axis the axis
     * @param start first index
     * @param stop exclusive bound
     * @param step non-zero step
     * @return a view sharing memory; release it when done
     * @throws IllegalArgumentException when {@code axis} is not an axis of this view, or {@code step} is 0
     * @throws IndexOutOfBoundsException when the slice is not empty and {@code start} is outside [0, n)
     * @throws IllegalStateException when this handle was released
     */
    public SharedArray slice(int axis, long start, long stop, long step) {
        checkAccessible();
        checkAxis(axis);
        if (step == 0) {
            throw new IllegalArgumentException("slice step must not be 0");
        }
        long n = shape[axis];
        stop = Math.max(-1, Math.min(n, stop));
        long count = sliceCount(start, stop, step);
        if (count > 0 && (start < 0 || start >= n)) {
            throw new IndexOutOfBoundsException("slice start " + start + " is out of bounds for axis " + axis + " with size " + n);
        }
        long[] newShape = shape.clone();
        long[] newStrides = strides.clone();
        newShape[axis] = count;
        try {
            newStrides[axis] = Math.multiplyExact(strides[axis], step);
        } catch (ArithmeticException e) {
            // |step| > n here, so the axis has one element and its stride is never applied: keep the old one
            newStrides[axis] = strides[axis];
        }
        long newOffset = count > 0 ? offset + start * strides[axis] : offset;
        return view(newShape, newStrides, newOffset);
    }

    /**
     * Fixes one index along {@code axis}, dropping that axis.
     *
     * @param axis the axis
     * @param index the index along it
     * @return a view with one dimension less; release it when done
     * @throws IllegalArgumentException when {@code axis} is not an axis of this view
     * @throws IndexOutOfBoundsException when {@code index} is outside [0, n)
     * @throws IllegalStateException when this handle was released
     */
    public SharedArray select(int axis, long index) {
        checkAccessible();
        checkAxis(axis);
        if (index < 0 || index >= shape[axis]) {
            throw new IndexOutOfBoundsException("index " + index + " is out of bounds for axis " + axis
                + " with size " + shape[axis]);
        }
        long[] newShape = new long[shape.length - 1];
        long[] newStrides = new long[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (i != axis) {
                newShape[j] = shape[i];
                newStrides[j++] = strides[i];
            }
        }
        return view(newShape, newStrides, offset + index * strides[axis]);
    }

    /** @return the view with its axes reversed; release it when done */
    public SharedArray transpose() {
        int[] axes = new int[shape.length];
        for (int i = 0; i < axes.length; i++) {
            axes[i] = axes.length - 1 - i;
        }
        return permute(axes);
    }

    /**
     * @param axes a permutation of 0..ndim-1: axis i of the result is axis {@code axes[i]} of this
     * @return the permuted view; release it when done
     */
    public SharedArray permute(int... axes) {
        checkAccessible();
        if (axes.length != shape.length) {
            throw new IllegalArgumentException("permute needs " + shape.length + " axes, got " + axes.length);
        }
        boolean[] seen = new boolean[axes.length];
        long[] newShape = new long[axes.length];
        long[] newStrides = new long[axes.length];
        for (int i = 0; i < axes.length; i++) {
            if (axes[i] < 0 || axes[i] >= axes.length || seen[axes[i]]) {
                throw new IllegalArgumentException(java.util.Arrays.toString(axes) + " is not a permutation of 0.."
                    + (axes.length - 1));
            }
            seen[axes[i]] = true;
            newShape[i] = shape[axes[i]];
            newStrides[i] = strides[axes[i]];
        }
        return view(newShape, newStrides, offset);
    }

    /**
     * A view with another shape over the same elements; only for contiguous views. One dimension may be
     * -1 to be inferred.
     *
     * @param newShape the new dimensions
     * @return the reshaped view; release it when done
     * @throws IllegalArgumentException when the shape has another number of elements, or is one a
     *     {@link Descriptor} cannot carry (more than {@value Descriptor#MAX_NDIM} dimensions, or an empty shape
     *     such as {@code (2^62, 0)} whose non-zero dimensions' byte size overflows a long)
     * @throws IllegalStateException when this view is not contiguous (copy it first), or has been released
     */
    public SharedArray reshape(long... newShape) {
        checkAccessible();
        if (!isContiguous()) {
            throw new IllegalStateException("reshape needs a contiguous view; this one has strides "
                + Shapes.tuple(strides) + " for shape " + Shapes.tuple(shape) + " (copy it first)");
        }
        if (newShape.length > Descriptor.MAX_NDIM) {
            // every view must be able to cross as a descriptor: refuse it here, not at descriptor()
            throw new IllegalArgumentException("cannot reshape into " + newShape.length + " dimensions: at most "
                + Descriptor.MAX_NDIM);
        }
        long[] target = newShape.clone();
        int infer = -1;
        long known = 1;
        for (int i = 0; i < target.length; i++) {
            if (target[i] == -1 && infer < 0) {
                infer = i;
            } else if (target[i] < 0) {
                throw new IllegalArgumentException("invalid shape " + Shapes.tuple(newShape));
            } else {
                try {
                    known = Math.multiplyExact(known, target[i]);
                } catch (ArithmeticException e) {
                    // more elements than a long counts: certainly not this view's
                    throw new IllegalArgumentException("cannot reshape " + Shapes.tuple(shape) + " (" + size()
                        + " elements) into " + Shapes.tuple(newShape) + ": its size overflows a long");
                }
            }
        }
        if (infer >= 0) {
            if (known == 0 || size() % known != 0) {
                throw new IllegalArgumentException("cannot reshape " + size() + " elements into " + Shapes.tuple(newShape));
            }
            target[infer] = size() / known;
            known = size();
        }
        if (known != size()) {
            throw new IllegalArgumentException("cannot reshape " + Shapes.tuple(shape) + " (" + size() + " elements) into "
                + Shapes.tuple(newShape));
        }
        if (known == 0) {
            // the view must cross as a descriptor, whose check multiplies out the byte size of the non-zero
            // dimensions: an empty (2^62, 0) of FLOAT64 overflows there, and its descriptor() threw. A non-empty
            // target has this view's size, which fits, so only an empty one needs the check.
            try {
                Shapes.checkShape(target, dtype);
            } catch (InvalidDescriptorException e) {
                throw new IllegalArgumentException("cannot reshape " + Shapes.tuple(shape) + " into "
                    + Shapes.tuple(newShape) + ": " + e.getMessage(), e);
            }
        }
        return view(target, Shapes.cStrides(target, dtype.byteSize()), offset);
    }

    /**
     * The same bytes read as another dtype, without a copy: NumPy's {@code a.view(np.uint8)}. Like every view it holds
     * its own reference, its {@link #descriptor()} opens in another JVM, and writes through either handle are seen by
     * both.
     *
     * <p>The rules are NumPy's for {@code ndarray.view(dtype)}:
     * <ul>
     *   <li>the same element size ({@code INT64} as {@code FLOAT64}, {@code INT8} as {@code UINT8}): the shape and
     *       strides are unchanged;</li>
     *   <li>another element size: the last axis must be contiguous (its stride is this dtype's size; a last axis of
     *       length 1, or a view with no element, counts as contiguous) and its byte length a multiple of the new size.
     *       The last dimension is scaled by the ratio of the sizes ({@code (3, 10)} FLOAT64 as UINT8 is
     *       {@code (3, 80)}, as FLOAT32 {@code (3, 20)}; {@code (3, 0)} stays {@code (3, 0)}), its stride becomes the
     *       new size, and the other strides are unchanged. A 0-d view keeps its element size.</li>
     * </ul>
     * So a column slice ({@code a.slice(1, 0, n, 2)}) or a transpose is refused, as NumPy refuses it, and rows of a
     * 2-D array ({@code a.slice(0, r0, r1, 1)}) are fine.
     *
     * <p>Beyond NumPy, each element must start on a boundary of the new size counted from the start of the file's
     * data, as {@link #open(Descriptor)} requires of every view: the view's first byte, and every stride of an axis of
     * more than one element, must be multiples of the new size. The data of sharray's files starts 64-byte aligned
     * (NumPy's at least 16-byte) in a page-aligned mapping, so such elements are aligned in memory too. NumPy would
     * make an unaligned view (a FLOAT64 view of the UINT8 array's columns 4..11, or of rows 12 bytes apart); sharray
     * refuses it. A view with no element has no first byte: its offset moves down to the nearest boundary of the new
     * size.
     *
     * <p>Example: code doubles with the erasure codec, whose stripe is a UINT8 array of k + m rows.
     * <pre>{@code
     * try (SharedArray stripe = SharedArray.create(DType.UINT8, k + m, 8 * n);
     *      SharedArray rows = stripe.slice(0, 0, k, 1);
     *      SharedArray data = rows.viewAs(DType.FLOAT64)) {   // (k, n) doubles over the data rows
     *     data.copyFrom(values);                            // k * n doubles, row-major
     *     codec.encode(stripe);
     * }
     * }</pre>
     *
     * @param newType the element type to read the bytes as
     * @return the view; release it when done
     * @throws IllegalArgumentException naming the shape, strides or offset these rules refuse
     * @throws IllegalStateException when this handle was released
     */
    public SharedArray viewAs(DType newType) {
        Objects.requireNonNull(newType, "newType");
        checkAccessible();
        final int oldSize = dtype.byteSize();
        final int newSize = newType.byteSize();
        final long[] newShape = shape.clone();
        final long[] newStrides = strides.clone();
        final boolean empty = Shapes.isEmpty(shape);
        if (newSize != oldSize) {
            if (shape.length == 0) {
                throw viewRefused(newType, "a 0-d view keeps its element size (" + oldSize + " bytes), as in NumPy");
            }
            final int last = shape.length - 1;
            if (shape[last] != 1 && !empty && strides[last] != oldSize) {
                throw viewRefused(newType, "the last axis must be contiguous (stride " + oldSize + ") to change the"
                    + " element size, but its stride is " + strides[last]);
            }
            // fits a long: the byte size of the non-zero dimensions does (Shapes.checkShape), an empty view's too
            final long lastBytes = shape[last] * oldSize;
            if (lastBytes % newSize != 0) {
                throw viewRefused(newType, "the last axis holds " + lastBytes + " bytes (" + shape[last] + " x "
                    + oldSize + "), not a multiple of the " + newSize + " bytes of a " + newType.name().toLowerCase());
            }
            newShape[last] = lastBytes / newSize;
            newStrides[last] = newSize;
        }
        final long dataStart = segment.header.dataOffset;
        long newOffset = offset;
        if (empty) {
            // no element to align, but the offset crosses in the descriptor and open() wants it on a boundary
            newOffset -= (offset - dataStart) % newSize;
            try {
                // (2^61, 0) of UINT8 is (2^61, 0) of FLOAT64, whose non-zero dimensions' byte size a descriptor
                // cannot carry: refused here, as reshape refuses it, not at descriptor()
                Shapes.checkShape(newShape, newType);
            } catch (InvalidDescriptorException e) {
                throw viewRefused(newType, e.getMessage());
            }
        } else if ((offset - dataStart) % newSize != 0) {
            throw viewRefused(newType, "its offset, byte " + (offset - dataStart) + " of the data, is not a multiple"
                + " of " + newSize + ": a " + newType.name().toLowerCase() + " there would not start on an element boundary");
        }
        final int axis = Shapes.misalignedAxis(newShape, newStrides, newSize);
        if (axis >= 0) {
            throw viewRefused(newType, "stride " + newStrides[axis] + " of axis " + axis + " is not a multiple of "
                + newSize + ": its " + newType.name().toLowerCase() + " elements would not start on element"
                + " boundaries");
        }
        return newView(newType, newShape, newStrides, newOffset);
    }

    private IllegalArgumentException viewRefused(DType to, String why) {
        return new IllegalArgumentException("cannot view " + dtype.name().toLowerCase() + " " + Shapes.tuple(shape)
            + " with strides " + Shapes.tuple(strides) + " as " + to.name().toLowerCase() + ": " + why);
    }

    /**
     * Another handle on the same view with its own reference: hand it to code that releases it
     * independently (an in-flight task, another thread).
     *
     * @return a new handle; release it when done
     */
    public SharedArray retain() {
        return view(shape.clone(), strides.clone(), offset);
    }

    private SharedArray view(long[] newShape, long[] newStrides, long newOffset) {
        if (newOffset != offset && Shapes.isEmpty(newShape)) {
            // An empty view touches no byte, but its offset still crosses in its descriptor, and open() wants it
            // inside the data: select or slice along another axis of an array with a zero-length axis could
            // move it past the end (shape (0, 5), select(1, 4): 32 bytes past an empty data block), and the
            // view's own descriptor did not reopen. This handle's offset is always inside (or at the end of) the
            // data, so the empty view keeps it, as slice() already did for an axis sliced to nothing.
            newOffset = offset;
        }
        return newView(dtype, newShape, newStrides, newOffset);
    }

    /** A new handle with its own reference on this array's file, as {@code type} with this geometry. */
    private SharedArray newView(DType type, long[] newShape, long[] newStrides, long newOffset) {
        checkAccessible();
        if (!Segments.tryAddRef(segment)) { // this handle was released by another thread since the check
            throw new IllegalStateException("the array " + segment.dataPath.getFileName() + " was released");
        }
        try {
            return new SharedArray(segment, type, newShape, newStrides, newOffset);
        } catch (RuntimeException | Error e) {
            Segments.release(segment); // the reference just taken belongs to no handle
            throw e;
        }
    }

    private void checkAxis(int axis) {
        if (axis < 0 || axis >= shape.length) {
            throw new IllegalArgumentException("axis " + axis + " out of range for " + shape.length + " dimensions");
        }
    }

    /**
     * How many of start, start + step, ... come before {@code stop} (exclusive, already clamped to [-1, n]),
     * without overflow: a start that far behind stop, stepping towards it, counts as a huge non-empty slice, so the
     * caller refuses it as out of bounds like any other (the subtraction used to wrap to a negative count: an empty
     * view); one that far on the other side steps away from it, and its slice is empty, as for a small start.
     */
    private static long sliceCount(long start, long stop, long step) {
        final long distance;
        try {
            distance = step > 0 ? Math.subtractExact(stop, start) : Math.subtractExact(start, stop);
        } catch (ArithmeticException e) {
            // which way it overflowed: slice(0, MIN_VALUE, 3, -1) walks down from below stop, empty as
            // slice(0, -5, 3, -1) is (it was refused as out of bounds)
            return (step > 0 ? stop > start : start > stop) ? Long.MAX_VALUE : 0;
        }
        if (distance <= 0) {
            return 0;
        }
        // |Long.MIN_VALUE| does not fit a long; any step at least as long as the distance takes one element
        final long stride = step == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(step);
        return (distance - 1) / stride + 1;
    }

    // ---- lifecycle ----

    /**
     * Drops this handle's reference; idempotent. The last reference in this process unmaps the file; the
     * last in any process deletes it. Afterwards every access to the elements through this handle, and every view,
     * {@link #descriptor()}, {@link #address()} and {@link #prefault()} of it, throws {@link IllegalStateException};
     * what the handle itself holds ({@link #shape()}, {@link #strides()}, {@link #offset()}, {@link #path()},
     * {@link #backing()}) still answers.
     */
    public void release() {
        if (!RELEASED.compareAndSet(this, false, true)) {
            return;
        }
        if (tracker != null) {
            tracker.close();
        }
        Segments.release(segment);
    }

    /** Same as {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    void checkAccessible() {
        if (released) { // a plain read: the JIT hoists it out of element loops
            throw new IllegalStateException("the array " + segment.dataPath.getFileName() + " was released");
        }
    }

    long segmentReferences() {
        checkAccessible(); // a released handle's refcount file may be unmapped
        return segment.localReferences();
    }

    long segmentTotalReferences() {
        checkAccessible();
        return segment.totalReferences();
    }

    String describe() {
        return "SharedArray " + new Descriptor(segment.dataPath, offset, shape, strides, dtype, ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public String toString() {
        return "SharedArray[" + dtype.name().toLowerCase() + " " + Shapes.tuple(shape) + " " + segment.dataPath
            + ((boolean) RELEASED.get(this) ? " released" : "") + "]";
    }

    // ---- element locations: native addresses ----

    @Override
    long locate(long[] index) {
        checkAccessible();
        if (index.length != shape.length) {
            throw wrongRank(index, shape);
        }
        long a = address;
        for (int i = 0; i < index.length; i++) {
            long ix = index[i];
            if (ix < 0 || ix >= shape[i]) {
                throw outOfBounds(index, shape, i);
            }
            a += ix * strides[i];
        }
        return a;
    }

    @Override
    long locate(long i) {
        checkAccessible();
        if (!dense8 && shape.length != 1) {
            throw wrongRank(new long[] {i}, shape);
        }
        // Objects.checkIndex, not a hand-written comparison: C2 turns it into a range check that it hoists
        // out of the caller's loop, which lets JDK 25 vectorise element loops (2.8x -> 2.2x of a heap loop)
        try {
            Objects.checkIndex(i, shape[0]);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds(new long[] {i}, shape, 0);
        }
        return dense8 ? address + (i << 3) : address + i * strides[0];
    }

    @Override
    long locate(long i, long j) {
        checkAccessible();
        if (shape.length != 2) {
            throw wrongRank(new long[] {i, j}, shape);
        }
        try {
            Objects.checkIndex(i, shape[0]);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds(new long[] {i, j}, shape, 0);
        }
        try {
            Objects.checkIndex(j, shape[1]);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds(new long[] {i, j}, shape, 1);
        }
        return address + i * strides[0] + j * strides[1];
    }

    @Override
    void forEachLocation(LongConsumer visitor) {
        checkAccessible();
        int nd = shape.length;
        if (size() == 0) {
            return;
        }
        if (nd == 0) {
            visitor.accept(address);
            return;
        }
        long[] idx = new long[nd];
        int last = nd - 1;
        long n = shape[last];
        long step = strides[last];
        long base = address;
        while (true) {
            long a = base;
            for (long i = 0; i < n; i++, a += step) {
                visitor.accept(a);
            }
            int ax = last - 1;
            while (ax >= 0) {
                idx[ax]++;
                base += strides[ax];
                if (idx[ax] < shape[ax]) {
                    break;
                }
                base -= strides[ax] * shape[ax];
                idx[ax] = 0;
                ax--;
            }
            if (ax < 0) {
                return;
            }
        }
    }

    @Override
    byte readByte(long loc) {
        return UnsafeApi.getByte(loc);
    }

    @Override
    short readShort(long loc) {
        return UnsafeApi.getShort(loc);
    }

    @Override
    int readInt(long loc) {
        return UnsafeApi.getInt(loc);
    }

    @Override
    long readLong(long loc) {
        return UnsafeApi.getLong(loc);
    }

    @Override
    float readFloat(long loc) {
        return UnsafeApi.getFloat(loc);
    }

    @Override
    double readDouble(long loc) {
        return UnsafeApi.getDouble(loc);
    }

    @Override
    void writeByte(long loc, byte v) {
        UnsafeApi.putByte(loc, v);
    }

    @Override
    void writeShort(long loc, short v) {
        UnsafeApi.putShort(loc, v);
    }

    @Override
    void writeInt(long loc, int v) {
        UnsafeApi.putInt(loc, v);
    }

    @Override
    void writeLong(long loc, long v) {
        UnsafeApi.putLong(loc, v);
    }

    @Override
    void writeFloat(long loc, float v) {
        UnsafeApi.putFloat(loc, v);
    }

    @Override
    void writeDouble(long loc, double v) {
        UnsafeApi.putDouble(loc, v);
    }

    // ---- bulk fast paths: one memcpy when the view is contiguous and the types match ----

    @Override
    public double[] toDoubleArray() {
        return dense(DType.FLOAT64) ? copyOut(new double[checkedLength()]) : super.toDoubleArray();
    }

    @Override
    public float[] toFloatArray() {
        return dense(DType.FLOAT32) ? copyOut(new float[checkedLength()]) : super.toFloatArray();
    }

    @Override
    public long[] toLongArray() {
        return dense(DType.INT64) ? copyOut(new long[checkedLength()]) : super.toLongArray();
    }

    @Override
    public int[] toIntArray() {
        return dense(DType.INT32) ? copyOut(new int[checkedLength()]) : super.toIntArray();
    }

    @Override
    public short[] toShortArray() {
        return dense(DType.INT16) ? copyOut(new short[checkedLength()]) : super.toShortArray();
    }

    @Override
    public byte[] toByteArray() {
        return dense(DType.INT8) || dense(DType.UINT8) ? copyOut(new byte[checkedLength()]) : super.toByteArray();
    }

    @Override
    public void copyTo(double[] dst) {
        if (dense(DType.FLOAT64)) {
            checkLength(dst.length, "destination");
            copyOut(dst);
        } else {
            super.copyTo(dst);
        }
    }

    @Override
    public void copyFrom(double[] src) {
        if (!copyIn(src, src.length, DType.FLOAT64)) {
            super.copyFrom(src);
        }
    }

    @Override
    public void copyFrom(float[] src) {
        if (!copyIn(src, src.length, DType.FLOAT32)) {
            super.copyFrom(src);
        }
    }

    @Override
    public void copyFrom(long[] src) {
        if (!copyIn(src, src.length, DType.INT64)) {
            super.copyFrom(src);
        }
    }

    @Override
    public void copyFrom(int[] src) {
        if (!copyIn(src, src.length, DType.INT32)) {
            super.copyFrom(src);
        }
    }

    @Override
    public void copyFrom(short[] src) {
        if (!copyIn(src, src.length, DType.INT16)) {
            super.copyFrom(src);
        }
    }

    @Override
    public void copyFrom(byte[] src) {
        if (!copyIn(src, src.length, DType.INT8) && !copyIn(src, src.length, DType.UINT8)) {
            super.copyFrom(src);
        }
    }

    private boolean dense(DType type) {
        return dtype == type && isContiguous();
    }

    /** Copies the whole view into a primitive array of the matching type; returns it. */
    private <A> A copyOut(A array) {
        checkAccessible();
        final long base = UnsafeApi.arrayBaseOffset(array.getClass());
        if (byteSize() >= ParallelChunks.MIN_BYTES) {
            onHelperThreads(() -> ParallelChunks.copyOut(address, array, base, byteSize()));
        } else {
            ParallelChunks.copyOut(address, array, base, byteSize());
        }
        return array;
    }

    /**
     * Runs {@code bulk}, which helper threads share ({@link ParallelChunks}), with a reference of the call's own: a
     * release of this handle by another thread meanwhile cannot unmap the memory under them. On JDK 17 a fault on a
     * common-pool thread is raised late, in whatever that thread runs next: another array's copy, a stranger's task
     * (threads review 47). The memory goes with this reference when the handle's release came first.
     *
     * @throws IllegalStateException when the array was released by every handle since the caller's check
     */
    private void onHelperThreads(Runnable bulk) {
        if (!Segments.tryAddRef(segment)) {
            throw new IllegalStateException("the array " + segment.dataPath.getFileName() + " was released");
        }
        try {
            bulk.run();
        } finally {
            Segments.release(segment);
        }
    }

    /** One memcpy from a primitive array when this view is dense of {@code type}; false otherwise. */
    private boolean copyIn(Object array, int length, DType type) {
        if (!dense(type)) {
            return false;
        }
        checkLength(length, "source");
        checkAccessible();
        final long base = UnsafeApi.arrayBaseOffset(array.getClass());
        if (byteSize() >= ParallelChunks.MIN_BYTES) {
            onHelperThreads(() -> {
                // a big copy writes every page: populate them in one call per chunk, not a fault per page during
                // the copy (a fresh 1 GiB array on this VM: 0.87-1.30 s against 1.69-1.73 s); next to nothing once done
                prefault();
                ParallelChunks.copyIn(array, base, address, byteSize());
            });
        } else {
            ParallelChunks.copyIn(array, base, address, byteSize());
        }
        return true;
    }

    @Override
    boolean isDenseFloat64() {
        return dtype == DType.FLOAT64 && isContiguous();
    }

    @Override
    Object unsafeBase() {
        return null;
    }

    @Override
    long unsafeOffset() {
        return address;
    }

    /** Copies a heap array of the matching Java type in (used by copyOf and HeapArray.toShared). */
    void copyRawFrom(Object data) {
        if (data instanceof double[]) {
            copyFrom((double[]) data);
        } else if (data instanceof float[]) {
            copyFrom((float[]) data);
        } else if (data instanceof long[]) {
            copyFrom((long[]) data);
        } else if (data instanceof int[]) {
            copyFrom((int[]) data);
        } else if (data instanceof short[]) {
            copyFrom((short[]) data);
        } else {
            copyFrom((byte[]) data);
        }
    }

    // ---- builder ----

    /** Options for a new array. */
    public static final class Builder {
        private final DType dtype;
        private final long[] shape;
        private Backing backing;
        private Path folder;

        private Builder(DType dtype, long[] shape) {
            this.dtype = Objects.requireNonNull(dtype, "dtype");
            this.shape = Objects.requireNonNull(shape, "shape").clone();
        }

        /**
         * @param backing how to map the file; default AGRONA up to 2 GiB, MAPPED_FILE above
         * @return this builder
         */
        public Builder backing(Backing backing) {
            this.backing = backing;
            return this;
        }

        /**
         * @param root the root folder (the array goes into {@code root/sharray-<user>/<owner>/}); default
         *     {@code -Dsharray.tempFolder}, else {@code SHARRAY_TEMP_FOLDER}, else {@code /dev/shm} when it has room,
         *     else {@code java.io.tmpdir}
         * @return this builder
         */
        public Builder folder(Path root) {
            this.folder = root;
            return this;
        }

        /**
         * Creates the zero-filled array; its file is preallocated so a full filesystem fails here, never
         * later as a crash. Arrays this process keeps only for reuse ({@link SharedArrays#registerArrayCache}, a
         * pool's copies of heap arguments) are released first when the new one would otherwise lack room.
         *
         * @return the array; release it when done
         * @throws IllegalArgumentException when a dimension is negative, there are too many, or the byte size of
         *     the non-zero dimensions overflows 2^63, as NumPy counts it (no file is created)
         * @throws IllegalStateException when the JVM is exiting (sharray's shutdown hook has run): nothing would
         *     delete the array's files before the next reaper pass, and its folder is gone
         * @throws InsufficientSpaceException when its folder lacks the room, even after cached arrays were released
         * @throws MapLimitException when this process has nearly as many memory mappings as the kernel allows
         * @throws UncheckedIOException when the folder cannot be made (the root is a file, say) or the files cannot be
         *     written
         */
        public SharedArray create() {
            return InterruptsSetAside.call(this::createNow);
        }

        private SharedArray createNow() {
            final long cachesReleased = ArrayCaches.generation();
            try {
                return createOnce();
            } catch (InsufficientSpaceException e) {
                // arrays kept only for reuse (a pool's copies of heap arguments) give way to this one; the retry's own
                // exception, if there is one, tells the room as it is now
                if (!ArrayCaches.releasedSince(cachesReleased, e.folder(), e.requestedBytes(), e.freeBytes(),
                        e.isMemoryShortage())) {
                    throw e;
                }
                return createOnce();
            }
        }

        private SharedArray createOnce() {
            Shapes.checkNewShape(shape, dtype);
            Segments.checkNotExiting();
            Reaper.onFirstUse();
            byte[] header = NpyHeader.encode(dtype, shape);
            // A page multiple: Chronicle maps whole pages and would grow the file itself; NumPy ignores the tail.
            long fileLength;
            // the data file and its refcount file: the largest page multiple plus the refcount file used to wrap to
            // Long.MIN_VALUE, pass the space check below and create both files before the file system refused them
            long needed;
            try {
                fileLength = Math.addExact(Math.addExact(header.length,
                    Math.multiplyExact(Shapes.size(shape), (long) dtype.byteSize())), PAGE - 1) / PAGE * PAGE;
                needed = Math.addExact(fileLength, RefCountFile.CREATED_BYTES);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " of " + dtype
                    + " needs more than 2^63 bytes", e);
            }
            Backing chosen = backing != null ? backing
                : fileLength <= AgronaMapping.MAX_LENGTH ? Backing.AGRONA : Backing.MAPPED_FILE;
            if (chosen == Backing.AGRONA && fileLength > AgronaMapping.MAX_LENGTH) {
                throw new IllegalArgumentException("the AGRONA backing maps at most 2 GiB; this array needs "
                    + fileLength + " bytes: use Backing.MAPPED_FILE");
            }
            // before any file: a process out of map entries is ended by the JVM's own next mapping
            Segments.ensureRoom(2, "a new array (its data and .ref files)");
            final Path dir;
            try {
                dir = TempFolders.ownerFolder(TempFolders.selectRoot(folder, needed, true));
            } catch (RuntimeException e) {
                // the exit hook began after the check above and removed this process's folder: refused in words
                Segments.checkNotExiting();
                throw e;
            }
            long free = TempFolders.usableSpace(dir);
            if (free >= 0 && free < needed) { // unknown (-1): the file's creation and preallocation tell
                throw new InsufficientSpaceException(dir, needed, free);
            }
            if (needed >= TempFolders.MEMORY_CHECK_BYTES) {
                // a tmpfs's files are memory: preallocating past what is left ends a process (the OOM killer, in a
                // memory-limited container typically this one) instead of failing with ENOSPC
                final long memory = TempFolders.memoryRoom(dir);
                if (memory < needed) {
                    throw new InsufficientSpaceException(dir, needed, memory, TempFolders.fileSystemType(dir));
                }
            }
            String base = "a" + SEQUENCE.incrementAndGet() + "-" + TempFolders.randomHex();
            Path data = dir.resolve(base + ".npy");
            Path ref = dir.resolve(base + ".ref");
            RefCountFile refs = null;
            Mapping mapping = null;
            Segment seg = null;
            Segments.beginCreate(data);
            try {
                TempFolders.createFile(data);
                try (RandomAccessFile raf = new RandomAccessFile(data.toFile(), "rw")) {
                    raf.write(header);
                    raf.setLength(fileLength);
                }
                int err = Posix.fallocate(data.toString(), fileLength);
                if (err == Posix.ENOSPC) {
                    throw new InsufficientSpaceException(dir, fileLength, TempFolders.usableSpace(dir));
                }
                if (err == Posix.EDQUOT) { // a quota met is a full file system to this user
                    throw InsufficientSpaceException.pastQuota(dir, fileLength);
                }
                if (err != 0) {
                    // no fallocate here (file system or library): reserve every page by writing it, so a full
                    // disk is an exception now and never a SIGBUS on first touch later
                    writeEveryPage(data, header.length, fileLength);
                }
                TempFolders.createFile(ref);
                refs = RefCountFile.create(ref);
                mapping = Mapping.map(data, fileLength, chosen);
                NpyHeader h = new NpyHeader(dtype, false, shape.clone(), header.length);
                seg = Segments.register(data, mapping, h, refs);
                return new SharedArray(seg, dtype, shape.clone(), Shapes.cStrides(shape, dtype.byteSize()), header.length);
            } catch (IOException | RuntimeException | Error e) { // an Error too (e.g. a class that fails to load): no file is left
                if (seg != null) {
                    Segments.unregister(seg); // else the exit hook would touch the mappings unmapped below
                }
                if (mapping != null) {
                    mapping.unmap();
                }
                if (refs != null) {
                    refs.unmap();
                }
                deleteQuietly(data);
                deleteQuietly(ref);
                if (e instanceof IOException) {
                    final long freeNow = TempFolders.usableSpace(dir);
                    if (freeNow >= 0 && freeNow < fileLength) {
                        throw new InsufficientSpaceException(dir, fileLength, freeNow);
                    }
                    final String inodes = freeNow >= fileLength && String.valueOf(e.getMessage()).contains("No space left on device")
                        ? " (" + freeNow + " bytes are free there now: the file system may be out of inodes, see df -i,"
                        + " or the space was taken meanwhile)" : "";
                    throw new UncheckedIOException("cannot create an array in " + dir + ": " + e.getMessage() + inodes,
                        (IOException) e);
                }
                if (e instanceof Error) {
                    throw (Error) e;
                }
                throw (RuntimeException) e;
            } finally {
                Segments.endCreate(data);
            }
        }

        /** Writes a zero into every page past the header (the file is new and zero already). */
        private static void writeEveryPage(Path data, int headerLength, long fileLength) throws IOException {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(data,
                    java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer zero = java.nio.ByteBuffer.allocate(1);
                for (long page = (headerLength + PAGE - 1) / PAGE * PAGE; page < fileLength; page += PAGE) {
                    ch.write(zero.clear(), page);
                }
            }
        }

        private static void deleteQuietly(Path p) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // best effort while failing
            }
        }
    }
}
