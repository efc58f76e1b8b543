package chatlytics;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Connects with the official ClickHouse JDBC driver and runs one PreparedStatement, the way a
 * BI tool or a data-team script does. Prints one line per row (columns tab-separated) and
 * exits 0; on an SQLException prints "SQLException <error code>: <message>" and exits 2, so
 * the caller can assert the ClickHouse code (e.g. 516 for a wrong key).
 *
 *   JdbcQuery <jdbc url> <user> <password> <sql with ?> [string parameter for each ?...]
 */
public final class JdbcQuery {
  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: JdbcQuery <jdbc url> <user> <password> <sql> [parameters...]");
      System.exit(64);
    }
    Properties props = new Properties();
    props.setProperty("user", args[1]);
    props.setProperty("password", args[2]);
    try (Connection conn = DriverManager.getConnection(args[0], props);
         PreparedStatement stmt = conn.prepareStatement(args[3])) {
      for (int i = 4; i < args.length; i++) stmt.setString(i - 3, args[i]);
      try (ResultSet rs = stmt.executeQuery()) {
        ResultSetMetaData meta = rs.getMetaData();
        while (rs.next()) {
          StringBuilder line = new StringBuilder();
          for (int c = 1; c <= meta.getColumnCount(); c++) {
            if (c > 1) line.append('\t');
            line.append(rs.getString(c));
          }
          System.out.println(line);
        }
      }
    } catch (SQLException e) {
      System.out.println("SQLException " + e.getErrorCode() + ": " + e.getMessage());
      System.exit(2);
    }
  }
}
