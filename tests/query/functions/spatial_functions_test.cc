// Spatial functions, pinned to the examples of the Microsoft documentation (marked "doc").
// Reference distances not from the documentation are WGS-84 geodesics (Karney's method).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "query/functions/registry.h"

using cosmos::Json;
using namespace cosmos::query;

namespace {

Value Call(const std::string& name, const std::vector<std::string>& json_args, FunctionContext& ctx) {
  const FunctionDef* def = FunctionRegistry::Instance().Find(name);
  REQUIRE(def != nullptr);
  std::vector<Value> args;
  for (const std::string& arg : json_args) args.push_back(Value::FromJson(Json::parse(arg)));
  return def->scalar(args, ctx);
}

Value Call(const std::string& name, const std::vector<std::string>& json_args) {
  FunctionContext ctx;
  return Call(name, json_args, ctx);
}

std::string Point(double lon, double lat) {
  Json point = {{"type", "Point"}, {"coordinates", {lon, lat}}};
  return point.dump();
}

// The documentation's 0.2° x 0.3° polygon near Lake Tanganyika, counter-clockwise.
const std::string kSquare =
    R"({"type":"Polygon","coordinates":[[[31.8,-5],[32,-5],[32,-4.7],[31.8,-4.7],[31.8,-5]]]})";

const std::string kHeadquarters =
    R"({"type":"Point","coordinates":[-122.12826822304672,47.63980239335718]})";
const std::string kResearch = R"({"type":"Point","coordinates":[-96.84368664765994,46.81297794314663]})";
const std::string kReference = R"({"type":"Point","coordinates":[-122.11758113953535,47.66901087006131]})";

// A unit square (in degrees) at the origin, counter-clockwise, and the same outline clockwise.
const std::string kUnitSquare = R"({"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]})";
const std::string kUnitSquareClockwise =
    R"({"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[1,0],[0,0]]]})";
// A 4° square with a 2° hole (hole clockwise, as GeoJSON asks).
const std::string kFrame =
    R"({"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[1,3],[3,3],[3,1],[1,1]]]})";

}  // namespace

TEST_CASE("Spatial functions are registered with their documented arity", "[query][spatial]") {
  for (const char* name : {"ST_DISTANCE", "ST_WITHIN", "ST_INTERSECTS"}) {
    const FunctionDef* def = FunctionRegistry::Instance().Find(name);
    REQUIRE(def != nullptr);
    CHECK(def->name == name);
    CHECK(def->min_args == 2);
    CHECK(def->max_args == 2);
  }
  for (const char* name : {"ST_AREA", "ST_ISVALID", "ST_ISVALIDDETAILED"}) {
    const FunctionDef* def = FunctionRegistry::Instance().Find(name);
    REQUIRE(def != nullptr);
    CHECK(def->name == name);
    CHECK(def->min_args == 1);
    CHECK(def->max_args == 1);
  }
  CHECK(FunctionRegistry::Instance().Find("st_distance") != nullptr);
}

TEST_CASE("ST_DISTANCE is a WGS-84 geodesic in metres", "[query][spatial]") {
  // doc: 3.345269817267368 km and 1907.438421299902 km. The service's own approximation differs
  // from an exact geodesic by about 4e-8 of the distance.
  CHECK(Call("ST_DISTANCE", {kHeadquarters, kReference}).number() == Approx(3345.269817267368).margin(0.001));
  CHECK(Call("ST_DISTANCE", {kResearch, kReference}).number() == Approx(1907438.421299902).margin(0.1));

  struct Case {
    std::string a, b;
    double metres;
    double tolerance;
  };
  std::vector<Case> cases = {
      {Point(0, 1), Point(0, 0), 110574.38855779878, 0.001},
      {Point(1, 0), Point(0, 0), 111319.49079327357, 0.001},
      {Point(0, 89), Point(180, 89), 223387.72982839972, 0.001},
      {Point(2.35, 48.85), Point(-74.0, 40.71), 5852833.473096102, 0.001},
      {Point(-122.13, 47.64), Point(151.2, -33.87), 12469654.04082038, 0.001},
      // Antipodes, where the iteration gives way to a sphere: within 0.5%.
      {Point(0, 0), Point(180, 0), 20003931.458625447, 100000},
      {Point(3, 3), Point(3, 3), 0, 0},
      // To the nearest point of an edge or a ring, zero when touching or inside.
      {Point(0, 1), R"({"type":"LineString","coordinates":[[-1,0],[1,0]]})", 110574.38855779878, 0.01},
      {Point(5, 5), kUnitSquare, 627129.5026107536, 0.01},
      {Point(0.5, 0.5), kUnitSquare, 0, 0},
      {Point(2, 2), kFrame, 110574.38855779878 * 1.0, 600},  // from the hole's centre to its edge
      {Point(1, 0.5), kUnitSquare, 0, 0},
      {R"({"type":"LineString","coordinates":[[2,0],[3,0]]})", R"({"type":"LineString","coordinates":[[0,0],[1,0]]})",
       111319.49079327357, 0.01},
      {kUnitSquare, kUnitSquare, 0, 0},
  };
  for (const Case& c : cases) {
    INFO(c.a << " to " << c.b);
    Value d = Call("ST_DISTANCE", {c.a, c.b});
    REQUIRE(d.is_number());
    CHECK(d.number() == Approx(c.metres).margin(c.tolerance));
  }
}

TEST_CASE("ST_WITHIN", "[query][spatial]") {
  // doc
  const std::string campus = R"({"type":"Polygon","coordinates":[[
      [-122.13236581015025,47.64606476313813],[-122.13221982500913,47.633757091363975],
      [-122.11840598103835,47.641749416109235],[-122.12061400629656,47.64589264786028],
      [-122.13236581015025,47.64606476313813]]]})";
  CHECK(IsTrue(Call("ST_WITHIN", {R"({"type":"Point","coordinates":[-122.12824857332558,47.6395516675712]})", campus})));

  struct Case {
    std::string a, b;
    bool within;
  };
  const std::string multi = R"({"type":"MultiPolygon","coordinates":[
      [[[52,12],[53,12],[53,13],[52,13],[52,12]]],[[[50,0],[51,0],[51,5],[50,5],[50,0]]]]})";
  std::vector<Case> cases = {
      {Point(31.9, -4.8), kSquare, true},
      {Point(31.7, -4.8), kSquare, false},
      {Point(0, 0.5), kUnitSquare, false},  // on the boundary: not in the interior
      // A clockwise ring stands for everything outside it.
      {Point(0.5, 0.5), kUnitSquareClockwise, false},
      {Point(10, 10), kUnitSquareClockwise, true},
      {Point(-170, -60), kUnitSquareClockwise, true},
      // Holes are not part of the polygon.
      {Point(2, 2), kFrame, false},
      {Point(0.5, 2), kFrame, true},
      {Point(50.5, 2.5), multi, true},
      {Point(52.5, 12.5), multi, true},
      {Point(51.5, 2.5), multi, false},
      {R"({"type":"LineString","coordinates":[[0.2,0.2],[0.8,0.8]]})", kUnitSquare, true},
      {R"({"type":"LineString","coordinates":[[0.2,0.2],[1.8,0.8]]})", kUnitSquare, false},
      {R"({"type":"LineString","coordinates":[[0.5,0.5],[3.5,0.5]]})", kFrame, true},
      {R"({"type":"LineString","coordinates":[[0.5,2],[3.5,2]]})", kFrame, false},  // across the hole
      {R"({"type":"Polygon","coordinates":[[[0.2,0.2],[0.8,0.2],[0.8,0.8],[0.2,0.8],[0.2,0.2]]]})", kUnitSquare, true},
      {kUnitSquare, kUnitSquare, true},
      {kUnitSquare, R"({"type":"Polygon","coordinates":[[[0.2,0.2],[0.8,0.2],[0.8,0.8],[0.2,0.8],[0.2,0.2]]]})", false},
      {R"({"type":"Polygon","coordinates":[[[0.5,0.5],[3.5,0.5],[3.5,3.5],[0.5,3.5],[0.5,0.5]]]})", kFrame, false},
      {Point(0.5, 0), R"({"type":"LineString","coordinates":[[0,0],[1,0]]})", true},
      {Point(0, 0), R"({"type":"LineString","coordinates":[[0,0],[1,0]]})", false},  // an end point
      {Point(1, 1), Point(1, 1), true},
      {Point(1, 1), Point(1, 2), false},
      {kUnitSquare, Point(0.5, 0.5), false},
  };
  for (const Case& c : cases) {
    INFO(c.a << " within " << c.b);
    Value v = Call("ST_WITHIN", {c.a, c.b});
    REQUIRE(v.is_boolean());
    CHECK(v.boolean() == c.within);
  }
}

TEST_CASE("ST_INTERSECTS", "[query][spatial]") {
  // doc
  const std::string highway = R"({"type":"Polygon","coordinates":[[
      [-122.13693695285855,47.64996065621003],[-122.1351662656516,47.64627863318731],
      [-122.13488295569863,47.646326350048696],[-122.1366182291613,47.650016321952904],
      [-122.13693695285855,47.64996065621003]]]})";
  const std::string campus = R"({"type":"Polygon","coordinates":[[
      [-122.14034847687708,47.6494835188378],[-122.14014779899375,47.64625477474044],
      [-122.13256925774829,47.646207057813655],[-122.13254564858545,47.64941990019193],
      [-122.14034847687708,47.6494835188378]]]})";
  CHECK(IsTrue(Call("ST_INTERSECTS", {highway, campus})));

  struct Case {
    std::string a, b;
    bool intersects;
  };
  std::vector<Case> cases = {
      {Point(31.9, -4.8), kSquare, true},
      {Point(0, 0.5), kUnitSquare, true},  // on the boundary
      {Point(2, 2), kFrame, false},        // in the hole
      {R"({"type":"LineString","coordinates":[[-1,0.5],[2,0.5]]})", kUnitSquare, true},
      {R"({"type":"LineString","coordinates":[[-1,2],[2,2]]})", kUnitSquare, false},
      {R"({"type":"LineString","coordinates":[[0,0],[1,1]]})", R"({"type":"LineString","coordinates":[[0,1],[1,0]]})",
       true},
      {R"({"type":"LineString","coordinates":[[0,0],[1,0]]})", R"({"type":"LineString","coordinates":[[0,1],[1,1]]})",
       false},
      {kUnitSquare, R"({"type":"Polygon","coordinates":[[[0.5,0.5],[2,0.5],[2,2],[0.5,2],[0.5,0.5]]]})", true},
      {kUnitSquare, R"({"type":"Polygon","coordinates":[[[2,2],[3,2],[3,3],[2,3],[2,2]]]})", false},
      // A cross shape: no vertex of either lies in the other, only edges cross.
      {R"({"type":"Polygon","coordinates":[[[-1,0.4],[2,0.4],[2,0.6],[-1,0.6],[-1,0.4]]]})",
       R"({"type":"Polygon","coordinates":[[[0.4,-1],[0.6,-1],[0.6,2],[0.4,2],[0.4,-1]]]})", true},
      {kUnitSquareClockwise, Point(10, 10), true},
      {Point(1, 1), Point(1, 1), true},
  };
  for (const Case& c : cases) {
    INFO(c.a << " intersects " << c.b);
    Value v = Call("ST_INTERSECTS", {c.a, c.b});
    REQUIRE(v.is_boolean());
    CHECK(v.boolean() == c.intersects);
  }
}

TEST_CASE("ST_AREA in square metres", "[query][spatial]") {
  // doc: 735970283.0522614 m². The authalic sphere reproduces it to 0.1 m².
  CHECK(Call("ST_AREA", {kSquare}).number() == Approx(735970283.0522614).margin(1.0));

  // The hole is taken out; a MultiPolygon adds its parts; points and lines have no area.
  double frame = Call("ST_AREA", {kFrame}).number();
  double outer = Call("ST_AREA", {R"({"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]]]})"}).number();
  double hole = Call("ST_AREA", {R"({"type":"Polygon","coordinates":[[[1,1],[3,1],[3,3],[1,3],[1,1]]]})"}).number();
  CHECK(frame == Approx(outer - hole).epsilon(1e-9));
  CHECK(hole == Approx(outer / 4).epsilon(1e-3));
  std::string two = R"({"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],
                                                             [[[2,0],[3,0],[3,1],[2,1],[2,0]]]]})";
  CHECK(Call("ST_AREA", {two}).number() == Approx(2 * Call("ST_AREA", {kUnitSquare}).number()).epsilon(1e-9));
  CHECK(Call("ST_AREA", {Point(1, 2)}).number() == 0);
  CHECK(Call("ST_AREA", {R"({"type":"LineString","coordinates":[[31.8,-5],[31.8,-4.7]]})"}).number() == 0);
  // Clockwise: the rest of the globe. The earth's area on the authalic sphere is 5.10066e14 m².
  double rest = Call("ST_AREA", {kUnitSquareClockwise}).number();
  CHECK(rest + Call("ST_AREA", {kUnitSquare}).number() == Approx(510065621724088.5).epsilon(1e-9));
}

TEST_CASE("ST_ISVALID and ST_ISVALIDDETAILED", "[query][spatial]") {
  const std::string valid_point = R"({"type":"Point","coordinates":[-84.38876194345323,33.75682784306348]})";
  const std::string invalid_point = R"({"type":"Point","coordinates":[133.75682784306348,-184.38876194345323]})";
  const std::string open_ring = R"({"type":"Polygon","coordinates":[[[31.8,-5],[31.8,-4.7],[32,-4.7],[32,-5]]]})";
  // doc
  CHECK(Call("ST_ISVALID", {valid_point}).ToString() == "true");
  CHECK(Call("ST_ISVALID", {invalid_point}).ToString() == "false");
  CHECK(Call("ST_ISVALID", {R"({"type":"Point","coordinates":[31.9,-132.8]})"}).ToString() == "false");
  CHECK(Call("ST_ISVALIDDETAILED", {valid_point}).ToString() == R"({"valid":true})");
  CHECK(Call("ST_ISVALIDDETAILED", {invalid_point}).ToString() ==
        R"({"valid":false,"reason":"Latitude values must be between -90 and 90 degrees."})");
  CHECK(Call("ST_ISVALIDDETAILED", {open_ring}).ToString() ==
        R"({"valid":false,"reason":"The Polygon input is not valid because the start and end points of the ring )"
        R"(number 1 are not the same. Each ring of a polygon must have the same start and end points."})");

  struct Case {
    std::string geometry;
    const char* expected;  // ST_ISVALID
  };
  std::vector<Case> cases = {
      {kSquare, "true"},
      {kFrame, "true"},
      {R"({"type":"LineString","coordinates":[[0,0],[1,1]]})", "true"},
      {R"({"type":"LineString","coordinates":[[0,0]]})", "false"},
      {R"({"type":"Point","coordinates":[181,0]})", "false"},
      {R"({"type":"Point","coordinates":[1,2,3]})", "true"},  // altitude is allowed
      {R"({"type":"Point","coordinates":[1]})", "false"},
      {R"({"type":"Point","coordinates":"1,2"})", "false"},
      {R"({"type":"Point"})", "false"},
      {R"({"type":"Polygon","coordinates":[]})", "false"},
      {R"({"type":"Polygon","coordinates":[[[0,0],[1,1],[0,0]]]})", "false"},  // too few points
      {R"({"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]]]})", "true"},
      {R"({"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1]]]]})", "false"},
      // Not GeoJSON at all: undefined.
      {R"({"type":"MultiPoint","coordinates":[[0,0]]})", "undefined"},
      {R"({"type":"point","coordinates":[0,0]})", "undefined"},
      {R"({"coordinates":[0,0]})", "undefined"},
      {R"("Point")", "undefined"},
      {"[0,0]", "undefined"},
      {"null", "undefined"},
  };
  for (const Case& c : cases) {
    INFO(c.geometry);
    CHECK(Call("ST_ISVALID", {c.geometry}).ToString() == c.expected);
    Value detailed = Call("ST_ISVALIDDETAILED", {c.geometry});
    if (std::string(c.expected) == "undefined") {
      CHECK(detailed.is_undefined());
    } else {
      CHECK(detailed.Property("valid").ToString() == c.expected);
      CHECK(detailed.Property("reason").is_string() == (std::string(c.expected) == "false"));
    }
  }
}

TEST_CASE("Spatial functions return undefined for invalid or non-GeoJSON arguments", "[query][spatial]") {
  const std::string bad_point = R"({"type":"Point","coordinates":[0,100]})";
  for (const char* name : {"ST_DISTANCE", "ST_WITHIN", "ST_INTERSECTS"}) {
    INFO(name);
    CHECK(Call(name, {bad_point, kSquare}).is_undefined());
    CHECK(Call(name, {kSquare, R"("not geojson")"}).is_undefined());
    CHECK(Call(name, {R"({"type":"Point","coordinates":[0]})", kSquare}).is_undefined());
    FunctionContext ctx;
    std::vector<Value> undefined_args = {Value(), Value()};
    CHECK(FunctionRegistry::Instance().Find(name)->scalar(undefined_args, ctx).is_undefined());
  }
  CHECK(Call("ST_AREA", {bad_point}).is_undefined());
  CHECK(Call("ST_AREA", {"42"}).is_undefined());
}

TEST_CASE("Spatial work grows with the number of vertices", "[query][spatial]") {
  FunctionContext small, large;
  Call("ST_INTERSECTS", {Point(0.5, 0.5), kUnitSquare}, small);
  // A circle of 360 vertices.
  Json ring = Json::array();
  for (int i = 0; i <= 360; ++i) {
    double angle = (i % 360) * 3.14159265358979323846 / 180;
    ring.push_back(Json::array({std::cos(angle), std::sin(angle)}));
  }
  Json circle = {{"type", "Polygon"}, {"coordinates", Json::array({ring})}};
  Call("ST_INTERSECTS", {Point(0.5, 0.5), circle.dump()}, large);
  CHECK(small.work >= 1);
  CHECK(large.work > small.work + 300);
}
