mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

// `.m` files and `.h` headers are Objective-C when their content says so
// (`matlab/peaks.m` stays text), `.mm` always.
const SOURCES: &str = r#"
//- Shapes/Shape.h
#import <Foundation/Foundation.h>

/// Something with an area.
@interface Shape : NSObject
@property (nonatomic, copy) NSString *name;
- (double)area;
- (NSString *)describe;
@end
//- Shapes/Shape.m
#import "Shape.h"

@implementation Shape

- (double)area {
    return 0;
}

- (NSString *)describe {
    return [NSString stringWithFormat:@"%@ of area %f", self.name, [self area]];
}

@end
//- Shapes/Circle.h
#import "Shape.h"

@protocol Scalable <NSObject>
- (void)scaleBy:(double)factor;
@end

/// A circle.
@interface Circle : Shape <Scalable>
@property (nonatomic) double radius;
+ (instancetype)circleWithRadius:(double)r;
@end
//- Shapes/Circle.m
#import "Circle.h"

static const double kPi = 3.14159;

double square(double x) { return x * x; }

@implementation Circle

- (instancetype)initWithRadius:(double)r {
    self = [super init];
    if (self) { _radius = r; }
    return self;
}

+ (instancetype)circleWithRadius:(double)r {
    return [[Circle alloc] initWithRadius:r];
}

- (double)area {
    return kPi * square(self.radius);
}

- (void)scaleBy:(double)factor {
    self.radius = self.radius * factor;
}

@end
//- App/main.m
#import "Circle.h"

int main(int argc, char *argv[]) {
    Circle *c = [Circle circleWithRadius:2.0];
    [c scaleBy:2.0];
    NSLog(@"%@", [c describe]);
    return 0;
}
//- matlab/peaks.m
function z = peaks(n)
  z = n .^ 2;
end
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(SOURCES));
}

#[test]
fn interfaces_implementations_and_protocols() {
    check(
        render_symbols,
        expect![[r#"
        Shapes/Shape.h (module Shapes/Shape, 0 parse errors)
          class Shape [4-8] `@interface Shape : NSObject` doc: Something with an area.
            field Shape.name [5-5] `@property (nonatomic, copy) NSString *name`
        Shapes/Shape.m (module Shapes/Shape, 0 parse errors)
          method Shape.area [5-7] `- (double)area`
          method Shape.describe [9-11] `- (NSString *)describe`
        Shapes/Circle.h (module Shapes/Circle, 0 parse errors)
          interface Scalable [3-5] `@protocol Scalable <NSObject>`
            method Scalable.scaleBy [4-4] `- (void)scaleBy:(double)factor`
          class Circle [8-11] `@interface Circle : Shape <Scalable>` doc: A circle.
            field Circle.radius [9-9] `@property (nonatomic) double radius`
        Shapes/Circle.m (module Shapes/Circle, 0 parse errors)
          constant kPi [3-3] `static const double kPi = 3.14159`
          function square [5-5] `double square(double x)`
          method Circle.initWithRadius [9-13] `- (instancetype)initWithRadius:(double)r`
          method Circle.circleWithRadius [15-17] `+ (instancetype)circleWithRadius:(double)r`
          method Circle.area [19-21] `- (double)area`
          method Circle.scaleBy [23-25] `- (void)scaleBy:(double)factor`
        App/main.m (module App/main, 0 parse errors)
          function main [3-8] `int main(int argc, char *argv[])`
        matlab/peaks.m (module matlab/peaks.m, 0 parse errors)
    "#]],
    );
}

#[test]
fn messages_inheritance_and_properties() {
    check(
        render_references,
        expect![[r#"
        Shapes/Shape.h
          1:9 import <Foundation/Foundation.h> in <module>
          4:20 inherit NSObject in Shape
        Shapes/Shape.m
          1:9 import Shape.h in <module>
          10:22 call NSString :: stringWithFormat in Shape.describe
          10:62 field_use self :: name in Shape.describe
          10:74 call self :: area in Shape.describe
        Shapes/Circle.h
          1:9 import Shape.h in <module>
          3:21 inherit NSObject in Scalable
          8:21 inherit Shape in Circle
          8:28 inherit Scalable in Circle
        Shapes/Circle.m
          1:9 import Circle.h in <module>
          10:19 call super :: init in Circle.initWithRadius
          16:14 instantiate Circle in Circle.circleWithRadius
          16:28 call [Circle alloc] :: initWithRadius in Circle.circleWithRadius
          20:18 call square in Circle.area
          20:30 field_use self :: radius in Circle.area
          24:10 field_use self :: radius in Circle.scaleBy
          24:24 field_use self :: radius in Circle.scaleBy
        App/main.m
          1:9 import Circle.h in <module>
          4:25 call Circle :: circleWithRadius in main
          5:8 call c :: scaleBy in main
          6:5 call NSLog in main
          6:21 call c :: describe in main
        matlab/peaks.m
    "#]],
    );
}

#[test]
fn chunks_follow_methods() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        Shapes/Shape.h
          1-9 Shape | class - | fn -
        Shapes/Shape.m
          1-14 Shape.area | class - | fn -
        Shapes/Circle.h
          1-12 Scalable | class - | fn -
        Shapes/Circle.m
          1-28 kPi | class - | fn -
        App/main.m
          1-9 main | class - | fn -
        matlab/peaks.m
          1-3 matlab/peaks.m | class - | fn -
    "#]],
    );
}
