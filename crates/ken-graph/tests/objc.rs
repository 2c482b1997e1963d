//! Objective-C end to end: `.m` files and `.h` headers are Objective-C by
//! their content; the methods of an `@implementation` join the class its
//! header's `@interface` declares, so `self`, `super` and the superclass
//! resolve across the pair; a typed local and a class method's receiver
//! resolve messages.

mod common;

use common::{check_edges, check_queries};
use expect_test::expect;

const FIXTURE: &str = r#"
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

#[test]
fn implementations_join_their_interfaces() {
    check_edges(
        FIXTURE,
        expect![[r#"
        App/main -imports-> Shapes/Circle
        Circle -derived_class_of-> Scalable
        Circle -derived_class_of-> Shape [unique_name]
        Circle.area -calls-> square
        Circle.area -overrides-> Shape.area
        Circle.area -uses-> Circle.radius
        Circle.circleWithRadius -calls-> Circle.initWithRadius [unique_name]
        Circle.circleWithRadius -instantiates-> Circle
        Circle.scaleBy -overrides-> Scalable.scaleBy
        Circle.scaleBy -uses-> Circle.radius
        Shape.describe -calls-> Shape.area
        Shape.describe -uses-> Shape.name
        Shapes/Circle -imports-> Shapes/Circle
        Shapes/Circle -imports-> Shapes/Shape
        Shapes/Shape -imports-> Shapes/Shape
        main -calls-> Circle.circleWithRadius [unique_name]
        main -calls-> Circle.scaleBy [type_inferred]
        main -calls-> Shape.describe [type_inferred]
        unresolved:
        Circle.initWithRadius -calls-> ?init
        Scalable -derived_class_of-> ?NSObject
        Shape -derived_class_of-> ?NSObject
        Shape.describe -calls-> ?stringWithFormat
        Shapes/Shape -imports-> ?<Foundation/Foundation.h>
        main -calls-> ?NSLog
    "#]],
    );
}

#[test]
fn callers_and_subclasses() {
    check_queries(
        FIXTURE,
        "callers Shape.area\ncallers Circle.circleWithRadius\nsubclasses Shape\noverrides Circle.area",
        expect![[r#"
        > callers Shape.area
          CalledBy Shape.describe (Shapes/Shape.m:10)
        > callers Circle.circleWithRadius
          CalledBy main (App/main.m:4)
        > subclasses Shape
          BaseClassOf Circle (Shapes/Circle.h:8)
        > overrides Circle.area
          Overrides Shape.area (Shapes/Circle.m:19)
    "#]],
    );
}
