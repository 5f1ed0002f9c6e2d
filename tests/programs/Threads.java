// Threads.java - a Java program with 4 threads of its own
// (tests/programs/test_programs.py).  Each thread sums a known series; the main
// thread prints the total.  args[0], when given, receives the tid of the
// main thread and of each worker (one per line, from /proc/thread-self),
// for the test to find them in the results.
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

public class Threads {
    static String tid() {
        try {
            Path p = Files.readSymbolicLink(Paths.get("/proc/thread-self"));
            return p.getFileName().toString();
        } catch (IOException e) {
            return "?";
        }
    }

    public static void main(String[] args) throws Exception {
        final int n = 4;
        final long[] sums = new long[n];
        final String[] tids = new String[n];
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int k = i;
            ts[i] = new Thread(() -> {
                tids[k] = tid();
                long s = 0;
                for (long j = 0; j < 20_000_000L; j++)
                    s += (j * (k + 1)) % 7;
                sums[k] = s;
            }, "worker-" + i);
            ts[i].start();
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            total += sums[i];
        }
        System.out.println("threads " + n + " total " + total);
        if (args.length > 0) {
            StringBuilder sb = new StringBuilder(tid() + "\n");
            for (String t : tids)
                sb.append(t).append("\n");
            Files.write(Paths.get(args[0]), sb.toString().getBytes(),
                        StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        }
    }
}
