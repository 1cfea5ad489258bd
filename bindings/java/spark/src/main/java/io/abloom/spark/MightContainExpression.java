package io.abloom.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeBlock;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.catalyst.expressions.codegen.JavaCode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The query side as a Catalyst expression rather than a UDF: {@code name(key)} is true where the
 * key might be in the filter shipped under a name, false where it is not, null for a null key.
 *
 * <p>Why not a UDF: a UDF boxes every key and converts every string to a Java {@code String}
 * (decode) that the binding then re-encodes to UTF-8; this expression takes Spark's own values
 * (a primitive long, the UTF-8 bytes), is compiled into the stage's generated code, and checks the
 * key's type when the query is analyzed, so an unsupported column fails before any task runs. The
 * generated code fetches the filter's {@link MappedProbe} once per partition from {@link
 * LoadedFilters} (opened once per JVM, by mmap) and tests each row in Java, with no native call.
 *
 * <p>It extends {@code Expression}, not {@code UnaryExpression}: javac cannot subclass the latter
 * (its Scala-mixed generic signatures clash under erasure), so the one-child plumbing is here.
 *
 * <p>Keys are encoded as the build encodes them (string: UTF-8; binary: as is; bigint and int: 8
 * bytes little-endian).
 */
final class MightContainExpression extends Expression {

  private static final long serialVersionUID = 1L;

  private final Expression key;
  private final String shippedName;
  private final String source;
  private final String functionName;

  /** Each argument is a product element: Catalyst copies the node through this constructor. */
  MightContainExpression(Expression key, String shippedName, String source, String functionName) {
    this.key = key;
    this.shippedName = shippedName;
    this.source = source;
    this.functionName = functionName;
  }

  @Override
  public scala.collection.immutable.Seq<Expression> children() {
    return CollectionConverters.asScala(List.of(key)).toSeq();
  }

  @Override
  public DataType dataType() {
    return DataTypes.BooleanType;
  }

  @Override
  public boolean nullable() {
    return key.nullable();
  }

  @Override
  public String prettyName() {
    return functionName;
  }

  @Override
  public TypeCheckResult checkInputDataTypes() {
    DataType t = key.dataType();
    try {
      KeyType.of(t, key.sql());
      return TypeCheckResult.TypeCheckSuccess$.MODULE$;
    } catch (IllegalArgumentException e) {
      return new TypeCheckResult.TypeCheckFailure(functionName + ": " + e.getMessage());
    }
  }

  /** The key type, found once per node (only valid once analysis has resolved the child). */
  private transient KeyType type;

  /** The probe of the interpreted path, looked up once per deserialized node. */
  private transient MappedProbe interpreted;

  private KeyType keyType() {
    KeyType t = type;
    if (t == null) {
      t = KeyType.of(key.dataType(), key.sql());
      type = t;
    }
    return t;
  }

  /** The interpreted path (used when whole-stage code generation is off or falls back). */
  @Override
  public Object eval(InternalRow row) {
    Object v = key.eval(row);
    if (v == null) {
      return null;
    }
    MappedProbe f = interpreted;
    if (f == null) {
      f = LoadedFilters.probe(shippedName, source);
      interpreted = f;
    }
    return switch (keyType()) {
      case LONG -> f.mightContain((long) (Long) v);
      case INT -> f.mightContain((long) (Integer) v);
      case STRING -> f.mightContain((UTF8String) v);
      case BINARY -> f.mightContain((byte[]) v);
    };
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    String names =
        ctx.addReferenceObj("abloomNames", new String[] {shippedName, source}, "java.lang.String[]");
    String filter =
        ctx.addMutableState(
            MappedProbe.class.getName(),
            "abloomProbe",
            v ->
                v
                    + " = "
                    + LoadedFilters.class.getName()
                    + ".probe("
                    + names
                    + "[0], "
                    + names
                    + "[1]);",
            true,
            true);
    String call =
        switch (keyType()) {
          case LONG, BINARY -> "%s.mightContain(%s)";
          case INT -> "%s.mightContain((long) %s)";
          case STRING -> "%s.mightContain(%s)";
        };
    ExprCode k = key.genCode(ctx);
    // The child's code goes in as an input, not as text: CodeBlock unescapes its text parts, which
    // would corrupt a string literal with a backslash in the child's code.
    String after =
        "\nboolean "
            + ev.isNull()
            + " = "
            + k.isNull()
            + ";\nboolean "
            + ev.value()
            + " = false;\nif (!"
            + ev.isNull()
            + ") {\n  "
            + ev.value()
            + " = "
            + String.format(call, filter, k.value())
            + ";\n}\n";
    List<JavaCode> inputs = List.of(k.code());
    return ev.copy(
        new CodeBlock(
            CollectionConverters.asScala(List.of("", after)).toSeq(),
            CollectionConverters.asScala(inputs).toSeq()),
        ev.isNull(),
        ev.value());
  }

  @Override
  public Expression withNewChildrenInternal(
      scala.collection.immutable.IndexedSeq<Expression> newChildren) {
    if (newChildren.size() != 1) {
      throw new IllegalArgumentException(functionName + " takes one child, got " + newChildren.size());
    }
    return new MightContainExpression(newChildren.apply(0), shippedName, source, functionName);
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> key;
      case 1 -> shippedName;
      case 2 -> source;
      case 3 -> functionName;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof MightContainExpression;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MightContainExpression m
        && key.equals(m.key)
        && shippedName.equals(m.shippedName)
        && source.equals(m.source)
        && functionName.equals(m.functionName);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(key, shippedName, source, functionName);
  }
}
