package dev.sharray.bench.pool;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The child JVM of {@link ProcessSumOfSquares}: opens the view its argument describes (descriptor bytes in
 * hex), says {@value #READY}, then for each {@value #GO} line on stdin answers {@value #SUM} and the sum of
 * squares of the view, read in place. Releases the view and exits when stdin closes.
 */
public final class SumOfSquaresChild {
    static final String READY = "ready";
    static final String GO = "go";
    static final String SUM = "sum ";

    private SumOfSquaresChild() {
    }

    /**
     * @param args the view's descriptor bytes in hex
     * @throws Exception on protocol errors
     */
    public static void main(String[] args) throws Exception {
        try (SharedArray view = SharedArray.open(Descriptor.fromBytes(HexFormat.of().parseHex(args[0])))) {
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println(READY);
            System.out.flush();
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.equals(GO)) {
                    throw new IllegalArgumentException("expected '" + GO + "', got '" + line + "'");
                }
                System.out.println(SUM + Kernels.sumOfSquares(view));
                System.out.flush();
            }
        }
    }
}
