import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * Runs a driver once per line of a cases file, all in one JVM: the driver's main is given
 * the common arguments, then the line's, split at white space (as a shell splits them).
 * One JVM per case paid its start and its JIT compiling again for every case: most of the
 * time of the small cases.
 *
 * Usage: java Batch DRIVER CASES_FILE COMMON_ARGS...
 */
public final class Batch {

    public static void main(String[] args) throws Exception {
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        String[] common = Arrays.copyOfRange(args, 2, args.length);
        for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            line = line.trim();
            if (line.isEmpty()) continue;
            String[] own = line.split("\\s+");
            String[] all = Arrays.copyOf(common, common.length + own.length);
            System.arraycopy(own, 0, all, common.length, own.length);
            try {
                main.invoke(null, (Object) all);
            } catch (InvocationTargetException e) {
                throw new RuntimeException("case " + line, e.getCause());
            }
        }
        System.out.flush();
    }
}
