package dev.sharray;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A child-JVM agent for cross-process tests. Reads commands from stdin, answers on stdout:
 * <pre>
 *   create DTYPE N...            -> "desc HEX"     (this JVM owns the array)
 *   open HEX                     -> "id K"
 *   dump K                       -> "values v1,v2,..." (doubles of the view, row-major)
 *   set K VALUE I...             -> "ok"
 *   get K I...                   -> "value V"
 *   release K                    -> "ok"
 *   hold HEX COUNT               -> "held"         (COUNT more handles, never released)
 *   loop HEX THREADS ITERATIONS  -> "looped"       (open/release in loops on THREADS threads)
 *   reap                         -> "reaped FOLDERS ARRAYS"
 *   folder                       -> "folder PATH"   (this process's sharray folder, created; no array)
 *   retain-mappings BYTES        -> "ok"           (SharedArrays.retainMappings, as a pool's worker does)
 *   halt-at deleter|reclaim|judge -> "ok"          (this JVM dies, as by kill -9, once it has named itself the
 *                                                   deleter of an array, or marked a dead holder's slot, or as it
 *                                                   judges whether a slot's holder is dead)
 *   exit                         -> exits normally (shutdown hooks run)
 * </pre>
 */
public final class ArrayAgent {
    private ArrayAgent() {
    }

    /** The test's side of {@code create}: @return the descriptor of the array the agent created and owns. */
    static Descriptor create(ChildJvm agent, String dtypeAndShape) throws java.io.IOException {
        agent.send("create " + dtypeAndShape);
        final String line = agent.readLine();
        if (!line.startsWith("desc ")) {
            throw new AssertionError("create " + dtypeAndShape + " answered " + line);
        }
        return Descriptor.fromBytes(HexFormat.of().parseHex(line.substring(5)));
    }

    /** An array {@link #heldAfterItsCreatorWasKilled} gave: its descriptor, and the holder's handle id for it. */
    record Held(Descriptor descriptor, String holderId) {
    }

    /**
     * Creates an array in a new agent JVM, opens it in {@code holder}, then kills the creator with {@code kill -9}:
     * the holder's reference is the only live one, in a dead owner's folder.
     */
    static Held heldAfterItsCreatorWasKilled(ChildJvm holder, String dtypeAndShape) throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            final Descriptor d = create(owner, dtypeAndShape);
            final String id = open(holder, d);
            owner.kill9();
            return new Held(d, id);
        }
    }

    /** The test's side of {@code open}: @return the agent's handle id for the array. */
    static String open(ChildJvm agent, Descriptor descriptor) throws java.io.IOException {
        agent.send("open " + HexFormat.of().formatHex(descriptor.toBytes()));
        final String line = agent.readLine();
        if (!line.startsWith("id ")) {
            throw new AssertionError("open answered " + line);
        }
        return line.substring(3);
    }

    public static void main(String[] args) throws Exception {
        Map<Integer, SharedArray> handles = new ConcurrentHashMap<>();
        List<SharedArray> held = new ArrayList<>();
        AtomicInteger ids = new AtomicInteger();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ready " + ProcessHandle.current().pid());
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+");
            try {
                switch (w[0]) {
                    case "create": {
                        long[] shape = new long[w.length - 2];
                        for (int i = 2; i < w.length; i++) {
                            shape[i - 2] = Long.parseLong(w[i]);
                        }
                        SharedArray a = SharedArray.create(DType.valueOf(w[1]), shape);
                        held.add(a);
                        System.out.println("desc " + HexFormat.of().formatHex(a.descriptor().toBytes()));
                        break;
                    }
                    case "open": {
                        int id = ids.incrementAndGet();
                        handles.put(id, SharedArray.open(Descriptor.fromBytes(HexFormat.of().parseHex(w[1]))));
                        System.out.println("id " + id);
                        break;
                    }
                    case "dump": {
                        double[] v = handles.get(Integer.parseInt(w[1])).toDoubleArray();
                        StringBuilder sb = new StringBuilder("values ");
                        for (int i = 0; i < v.length; i++) {
                            sb.append(i == 0 ? "" : ",").append(v[i]);
                        }
                        System.out.println(sb);
                        break;
                    }
                    case "set": {
                        handles.get(Integer.parseInt(w[1])).setDouble(Double.parseDouble(w[2]), indices(w, 3));
                        System.out.println("ok");
                        break;
                    }
                    case "get":
                        System.out.println("value " + handles.get(Integer.parseInt(w[1])).getDouble(indices(w, 2)));
                        break;
                    case "release":
                        handles.remove(Integer.parseInt(w[1])).release();
                        System.out.println("ok");
                        break;
                    case "hold": {
                        Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(w[1]));
                        for (int i = 0; i < Integer.parseInt(w[2]); i++) {
                            held.add(SharedArray.open(d));
                        }
                        System.out.println("held");
                        break;
                    }
                    case "loop":
                        loop(Descriptor.fromBytes(HexFormat.of().parseHex(w[1])), Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                        System.out.println("looped");
                        break;
                    case "reap": {
                        ReapReport r = SharedArrays.reap();
                        System.out.println("reaped " + r.foldersRemoved().size() + " " + r.arraysDeleted().size());
                        break;
                    }
                    case "folder":
                        System.out.println("folder " + SharedArrays.processFolder());
                        break;
                    case "retain-mappings":
                        SharedArrays.retainMappings(Long.parseLong(w[1]));
                        System.out.println("ok");
                        break;
                    case "halt-at": {
                        final Runnable halt = () -> Runtime.getRuntime().halt(137);
                        switch (w[1]) {
                            case "deleter" -> RefCountFile.afterDeleterNamed = halt;
                            case "reclaim" -> RefCountFile.afterReclaimMark = halt;
                            default -> RefCountFile.betweenSlotReads = halt;
                        }
                        System.out.println("ok");
                        break;
                    }
                    case "exit":
                        System.exit(0);
                        break;
                    case "exit-slowly": { // a hook of the program's own keeps the JVM in its exit until w[1] exists
                        final Path go = Path.of(w[1]);
                        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                            for (int i = 0; i < 3000 && !Files.exists(go); i++) {
                                try {
                                    Thread.sleep(10);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        }));
                        System.exit(0);
                        break;
                    }
                    default:
                        System.out.println("error unknown command " + w[0]);
                }
            } catch (RuntimeException e) {
                System.out.println("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    private static long[] indices(String[] w, int from) {
        long[] idx = new long[w.length - from];
        for (int i = from; i < w.length; i++) {
            idx[i - from] = Long.parseLong(w[i]);
        }
        return idx;
    }

    /** Each thread opens a handle, takes a view, releases both, many times. */
    static void loop(Descriptor d, int threads, int iterations) throws InterruptedException {
        Thread[] ts = new Thread[threads];
        RuntimeException[] failure = new RuntimeException[1];
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> {
                try {
                    for (int i = 0; i < iterations; i++) {
                        try (SharedArray a = SharedArray.open(d); SharedArray v = a.slice(0, 0, 1, 1)) {
                            if (v.size() != 1) {
                                throw new IllegalStateException("bad view");
                            }
                        }
                    }
                } catch (RuntimeException e) {
                    failure[0] = e;
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
    }
}
