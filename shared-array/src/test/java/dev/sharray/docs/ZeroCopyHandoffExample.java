package dev.sharray.docs;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.JvmFlags;
import dev.sharray.SharedArray;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Zero-copy handoff: a parent JVM creates a matrix, hands a strided view of it (one column) to a child JVM
 * as a descriptor, and the child reads and writes that column in place. No element is copied.
 */
public final class ZeroCopyHandoffExample {
    /** What the parent saw. */
    public record Outcome(double sumSeenByChild, double expectedSum, boolean childWritesVisible) {
    }

    /** The parent side: run it from your main method. */
    public static Outcome parent() throws Exception {
        int rows = 1000;
        int cols = 500;
        double[] values = new double[rows * cols];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;                                    // row-major: element (r, c) = r * cols + c
        }
        try (SharedArray matrix = SharedArray.create(DType.FLOAT64, rows, cols);
             SharedArray column7 = matrix.select(1, 7)) {     // a view: shape (1000,), stride 4000 bytes
            matrix.copyFrom(values);
            byte[] descriptor = column7.descriptor().toBytes();  // ~100 bytes, whatever the array's size

            Process child = startJvm(ZeroCopyHandoffExample.class.getName());
            try (PrintWriter toChild = new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8);
                 BufferedReader fromChild = new BufferedReader(
                     new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                toChild.println(HexFormat.of().formatHex(descriptor));
                double sum = Double.parseDouble(fromChild.readLine());   // the child answers when done
                toChild.close();                                          // lets the child exit
                child.waitFor();

                double expected = 0;
                boolean doubled = true;
                for (int r = 0; r < rows; r++) {
                    double original = (double) r * cols + 7;
                    expected += original;
                    doubled &= matrix.getDouble(r, 7) == 2 * original;   // the child's writes, no copy back
                }
                return new Outcome(sum, expected, doubled);
            }
        }
    }

    /** The child side: opens the view the descriptor names, sums it, doubles it in place. */
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(in.readLine()));
        double sum = 0;
        try (SharedArray column = SharedArray.open(d)) {     // maps the same memory: exactly that view
            for (long i = 0; i < column.size(); i++) {
                double v = column.getDouble(i);
                sum += v;
                column.setDouble(2 * v, i);
            }
        }                                                    // releases this JVM's reference
        System.out.println(sum);
        System.out.flush();
        in.readLine();                                       // wait for the parent to close stdin
    }

    /** Starts a JVM with this JVM's classpath and the project's JVM flags (config/jvm.flags). */
    static Process startJvm(String mainClass, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JvmFlags.forCurrentJvm());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
