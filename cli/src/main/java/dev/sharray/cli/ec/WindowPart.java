package dev.sharray.cli.ec;

import dev.sharray.SharedArray;

/**
 * One task of a window: what the coding job is, the shared rows the worker writes, and which columns.
 * It is the task's argument, not captured by the task's function, so the function stays the same for
 * every window and crosses to each worker JVM once; only this record and a descriptor cross per task.
 *
 * @param job    the {@link EncodeJob} or {@link ReconstructJob}
 * @param rows   the shared window rows the worker writes (parity, or the rows being rebuilt)
 * @param c0     first column of the window
 * @param start  first column of this part, relative to {@code c0}; also its offset in the shared rows
 * @param length columns in this part
 * @param row0   first row of {@code rows} to use (the coders double-buffer windows)
 */
public record WindowPart(WindowJob job, SharedArray rows, long c0, long start, int length, int row0) {
}
