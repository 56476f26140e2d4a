package dev.sharray;

import java.util.concurrent.TimeUnit;

/**
 * A child JVM for {@link ReleasedRangesTest}: lowers its own address-space limit ({@code prlimit --as}, as
 * {@code ulimit -v} would) before its first array, then creates and releases arrays until far more than the
 * limit has been released. Prints {@code "released B bytes, reserved R of limit L"} and exits 0, or exits
 * non-zero when a create fails.
 *
 * <p>Arguments: limit in bytes, array size in bytes, count.
 */
public final class AddressLimitChild {
    private AddressLimitChild() {
    }

    public static void main(String[] args) throws Exception {
        final long limit = Long.parseLong(args[0]);
        final long arrayBytes = Long.parseLong(args[1]);
        final int count = Integer.parseInt(args[2]);
        final Process prlimit = new ProcessBuilder("prlimit", "--pid", Long.toString(ProcessHandle.current().pid()),
            "--as=" + limit + ":" + limit).inheritIO().start();
        if (!prlimit.waitFor(30, TimeUnit.SECONDS) || prlimit.exitValue() != 0) {
            throw new IllegalStateException("prlimit failed");
        }
        long released = 0;
        for (int i = 0; i < count; i++) {
            final SharedArray a = SharedArray.create(DType.FLOAT64, arrayBytes / 8);
            a.setDouble(i, arrayBytes / 8 - 1); // touch it: a mapping that exists
            a.release();
            released += arrayBytes;
        }
        System.out.println("released " + released + " bytes, reserved " + ReleasedRanges.reservedBytes()
            + " of limit " + limit);
    }
}
