// C++: namespaces, classes, virtual calls, templates, overloads, operators and std::string /
// std::vector / std::map use, so demangled names exercise substitutions (S_, St, Sa, ...).
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace geo {
static volatile double sink;

struct Shape {
  virtual ~Shape() {}
  virtual double area() const = 0;
  virtual std::string name() const { return "shape"; }
};

struct Circle : Shape {
  double r;
  explicit Circle(double r_) : r(r_) {}
  double area() const override {
    double s = 0;
    for (int i = 0; i < 400; i++) s += 3.14159 * r * r / (i + 1);
    return s;
  }
  std::string name() const override { return "circle"; }
};

struct Square : Shape {
  double side;
  explicit Square(double s_) : side(s_) {}
  double area() const override {
    double s = 0;
    for (int i = 0; i < 250; i++) s += side * side / (i + 1);
    return s;
  }
};

template <typename T>
T accumulate_area(const std::vector<Shape *> &shapes, T scale) {
  T total = 0;
  for (const Shape *s : shapes) total += static_cast<T>(s->area()) * scale;
  return total;
}

template <typename T, int N>
struct Matrix {
  T v[N][N];
  Matrix() { for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) v[i][j] = T(i + j); }
  Matrix operator*(const Matrix &o) const {
    Matrix m;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        T s = 0;
        for (int k = 0; k < N; k++) s += v[i][k] * o.v[k][j];
        m.v[i][j] = s;
      }
    return m;
  }
};
}  // namespace geo

double measure(int x) { return x * 1.5; }
double measure(double x) { return x * 2.5; }
double measure(const std::string &s) { return static_cast<double>(s.size()); }

std::size_t count_names(const std::vector<std::string> &names, const std::map<std::string, int> &seen) {
  std::size_t n = 0;
  for (const std::string &s : names) n += seen.count(s) + s.size();
  return n;
}

std::vector<std::string> make_names(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; i++) out.push_back("name" + std::to_string(i % 17));
  return out;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 300;
  std::vector<geo::Shape *> shapes;
  for (int i = 0; i < 20; i++) {
    if (i % 3) shapes.push_back(new geo::Circle(i));
    else shapes.push_back(new geo::Square(i));
  }
  std::map<std::string, int> seen;
  double acc = 0;
  for (int r = 0; r < rounds; r++) {
    acc += geo::accumulate_area<double>(shapes, 1.0);
    acc += geo::accumulate_area<float>(shapes, 0.5f);
    geo::Matrix<double, 8> m1, m2;
    geo::Matrix<double, 8> m3 = m1 * m2;
    geo::Matrix<int, 6> i1, i2;
    geo::Matrix<int, 6> i3 = i1 * i2;
    acc += m3.v[1][1] + i3.v[2][2];
    acc += measure(r) + measure(r * 0.5) + measure(shapes[r % 20]->name());
    std::vector<std::string> names = make_names(30);
    seen[names[r % 30]] += 1;
    acc += static_cast<double>(count_names(names, seen));
  }
  geo::sink = acc;
  for (geo::Shape *s : shapes) delete s;
  return 0;
}
