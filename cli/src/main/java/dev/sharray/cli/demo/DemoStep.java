package dev.sharray.cli.demo;

/**
 * One row of the demo table.
 *
 * @param name        the step
 * @param bytes       bytes the step processed
 * @param seconds     wall time
 * @param copyHandoff bytes a copy-based handoff (pickling chunks to workers and results back) would move,
 *                    or -1 when the step involves no handoff
 * @param rated       whether bytes per second mean something for this step (not for freeing memory, whose
 *                    time does not grow with the bytes)
 */
record DemoStep(String name, long bytes, double seconds, long copyHandoff, boolean rated) {
    DemoStep(String name, long bytes, double seconds, long copyHandoff) {
        this(name, bytes, seconds, copyHandoff, true);
    }
}
