package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;

/**
 * For {@link WorkerTempFolderTest}: a parent started with a {@code -Duser.name} of its own hands an array to its
 * pool's worker; prints the array's folder and what the worker read, or the failure.
 */
public final class OtherUserNameChild {
    private OtherUserNameChild() {
    }

    public static void main(String[] args) throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4); ProcessPool pool = ProcessPool.create(1)) {
            a.setDouble(2.5, 3);
            System.out.println("folder " + a.path().getParent().getParent().getFileName());
            try {
                System.out.println("read " + pool.submit((SharedArray s) -> s.getDouble(3), a).get());
            } catch (Exception e) {
                System.out.println("failed " + e.getCause());
            }
        }
    }
}
